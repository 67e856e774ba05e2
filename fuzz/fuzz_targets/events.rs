//! See `toon_codec_fuzz::checks::stream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toon_codec_fuzz::checks::stream::events(data));
