//! `toon::stream::Events` reads a document of any size in memory bounded by its longest
//! line: a tabular document generated on the fly by a reader (never held whole), its events
//! counted, the heap's peak measured with a counting allocator (this test's own thread).
//!
//! `TOON_STREAM_MB` sets the document's size (default 24 MB, a few seconds in a debug
//! build); `TOON_STREAM_MB=200 cargo test --release --test memory stream:: -- --nocapture`
//! reads 200 MB.

use crate::counting;

use std::io::{BufReader, Read};

use toon::stream::{Event, Events, Primitive};

/// A document of `rows` rows, written into the caller's buffer as it is read.
struct Generated {
    rows: usize,
    next: usize,
    pending: Vec<u8>,
    at: usize,
    done: bool,
}

impl Generated {
    fn new(rows: usize) -> Self {
        let head = format!(
            "meta:\n  name: generated\n  version: 3\nrows[{rows}]{{id,name,score,active,city}}:\n"
        );
        Generated {
            rows,
            next: 0,
            pending: head.into_bytes(),
            at: 0,
            done: false,
        }
    }

    /// The next piece of text: a batch of rows, then the last field.
    fn refill(&mut self) {
        self.pending.clear();
        self.at = 0;
        if self.next == self.rows {
            if !self.done {
                self.pending.extend_from_slice(b"after: done\n");
                self.done = true;
            }
            return;
        }
        use std::io::Write;
        let end = (self.next + 512).min(self.rows);
        for i in self.next..end {
            writeln!(
                self.pending,
                "  {i},user-{i},{}.{},{},\"city {}, zone {}\"",
                i % 1000,
                i % 97,
                i % 3 == 0,
                i % 89,
                i % 7
            )
            .unwrap();
        }
        self.next = end;
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            self.refill();
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_large_table_streams_in_bounded_memory() {
    let megabytes: usize = std::env::var("TOON_STREAM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    // A row is about 50 bytes.
    let rows = megabytes * (1 << 20) / 50;
    let mut bytes = 0usize;
    let mut counted = (0usize, 0usize, 0usize); // events, rows, strings
    let peak = counting::peak_during(|| {
        let reader = BufReader::new(Counted(Generated::new(rows), &mut bytes));
        for event in Events::new(reader) {
            counted.0 += 1;
            match event.unwrap() {
                Event::EndObject => counted.1 += 1,
                Event::Primitive(Primitive::String(_)) => counted.2 += 1,
                _ => {}
            }
        }
    });
    eprintln!(
        "{:.1} MB read, {} events, peak heap {} KB",
        bytes as f64 / 1e6,
        counted.0,
        peak / 1024
    );
    assert!(bytes > megabytes * 900_000, "{bytes} bytes");
    // Every row, the meta block and the root object end with `EndObject`.
    assert_eq!(counted.1, rows + 2);
    assert_eq!(counted.2, 2 * rows + 2);
    assert!(peak < 1 << 20, "peak heap {peak} bytes");
}

/// Counts the bytes read through it.
struct Counted<'a, R>(R, &'a mut usize);

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        *self.1 += n;
        Ok(n)
    }
}
