//! Bounded memory: encoding streams (only field names and one row are held), and decoding
//! needs no tree. Measured with a counting allocator (`counting.rs`: this test's own thread).

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::counting::{peak_and_retained, peak_during};

/// A document generated while it is serialized: `rows` employee records plus a nested
/// group and a keyed table, never held in memory.
struct Generated {
    rows: usize,
    flags: usize,
}

struct Row(usize);

impl Serialize for Row {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let i = self.0;
        let mut row = s.serialize_struct("Row", 5)?;
        row.serialize_field("id", &i)?;
        row.serialize_field("name", &format!("user-{i}"))?;
        row.serialize_field("score", &(i as f64 / 7.0))?;
        row.serialize_field("active", &i.is_multiple_of(3))?;
        row.serialize_field("address", &Address(i))?;
        row.end()
    }
}

struct Address(usize);

impl Serialize for Address {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut a = s.serialize_struct("Address", 2)?;
        a.serialize_field("city", &format!("city {}", self.0 % 97))?;
        a.serialize_field("zip", &(10_000 + self.0 % 89_999))?;
        a.end()
    }
}

impl Serialize for Generated {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut doc = s.serialize_struct("Doc", 2)?;
        doc.serialize_field("employees", &Rows(self.rows))?;
        doc.serialize_field("flags", &Keyed(self.flags))?;
        doc.end()
    }
}

struct Rows(usize);

impl Serialize for Rows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.0).map(Row))
    }
}

struct Keyed(usize);

impl Serialize for Keyed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map((0..self.0).map(|i| (format!("flag_{i}"), Address(i))))
    }
}

/// The typed model a user would decode the generated document into.
#[allow(dead_code)] // fields are read only by the allocator
#[derive(serde::Deserialize)]
struct Decoded {
    employees: Vec<DecodedRow>,
    flags: std::collections::BTreeMap<String, DecodedAddress>,
}

#[allow(dead_code)]
#[derive(serde::Deserialize)]
struct DecodedRow {
    id: u64,
    name: String,
    score: f64,
    active: bool,
    address: DecodedAddress,
}

#[allow(dead_code)]
#[derive(serde::Deserialize)]
struct DecodedAddress {
    city: String,
    zip: u32,
}

/// Counts bytes without keeping them.
struct Sink(usize);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn encoding_and_decoding_use_bounded_extra_memory() {
    let doc = Generated {
        rows: 150_000,
        flags: 37_500,
    };

    let mut sink = Sink(0);
    let encode_peak = peak_during(|| toon::to_writer(&mut sink, &doc).unwrap());
    eprintln!("encode peak {encode_peak}");
    assert!(
        sink.0 > 8_000_000,
        "the document is large: {} bytes",
        sink.0
    );
    assert!(
        encode_peak < 512 * 1024,
        "encoding {} bytes of TOON peaked at {encode_peak} bytes of heap",
        sink.0
    );

    let text = toon::to_string(&doc).unwrap();
    assert!(text.starts_with("employees[150000]{id,name,score,active,address{city,zip}}:"));
    assert!(text.contains("\nflags[37500:]{city,zip}:\n  flag_0: city 0,10000"));

    // to_string: the result is the only large allocation, grown by half so its capacity
    // stays within 1.5× its length.
    let (string_peak, _, encoded) = peak_and_retained(|| toon::to_string(&doc).unwrap());
    eprintln!(
        "to_string peak {string_peak} for {} bytes ({:.2}×)",
        encoded.len(),
        string_peak as f64 / encoded.len() as f64
    );
    assert!(string_peak as f64 <= 1.5 * encoded.len() as f64);
    drop(encoded);

    // Typed decoding of rows: nothing beyond the result itself survives or peaks.
    let rows_text = toon::to_string(&Generated {
        rows: 150_000,
        flags: 1,
    })
    .unwrap();
    let (peak, retained, decoded) =
        peak_and_retained(|| toon::from_str::<Decoded>(&rows_text).unwrap());
    eprintln!("typed rows decode: peak {peak}, result {retained}");
    assert_eq!(decoded.employees.len(), 150_000);
    assert!(
        peak - retained < 64 * 1024,
        "decoding rows needed {} bytes beyond the {retained} of its result",
        peak - retained
    );
    drop(decoded);

    // Strict duplicate detection (§14.3) remembers each key of the object being read,
    // borrowed from the input: proportional to that object's entries, nothing else.
    let decode_peak = peak_during(|| {
        let _: serde::de::IgnoredAny = toon::from_str(&text).unwrap();
    });
    eprintln!("decode peak {decode_peak}");
    assert!(
        decode_peak < 80 * 37_500,
        "validating {} bytes of TOON peaked at {decode_peak} bytes of heap",
        text.len()
    );

    // Rows need no memory per row at all.
    let rows_only = toon::to_string(&Generated {
        rows: 150_000,
        flags: 0,
    })
    .unwrap();
    let rows_peak = peak_during(|| {
        let _: serde::de::IgnoredAny = toon::from_str(&rows_only).unwrap();
    });
    eprintln!("rows peak {rows_peak}");
    assert!(
        rows_peak < 64 * 1024,
        "validating {} bytes of rows peaked at {rows_peak} bytes of heap",
        rows_only.len()
    );
}
