//! See `toon_codec_fuzz::wire`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toon_codec_fuzz::wire::check(data));
