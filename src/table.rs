//! Table compression: a columnar view of records ([`Table`]), opt-in transforms that make
//! semi-uniform arrays tabular ([`tabularize`]), and the cheapest rendering per document
//! ([`auto`], its [`Rendering`]s and [`Choice`]).
//!
//! ```
//! let logs = toon::toon!({"logs": [
//!     {"level": "warn", "error": {"code": 1}},
//!     {"level": "info"},
//! ]});
//! // As is, the rows differ, so TOON falls back to list items.
//! assert!(toon::to_string(&logs).unwrap().starts_with("logs[2]:\n  - level: warn"));
//! let (table, report) = toon::table::tabularize(&logs, &toon::table::Tabularize::all());
//! assert_eq!(
//!     toon::to_string(&table).unwrap(),
//!     "logs[2]{level,error{code}}:\n  warn,1\n  info,null"
//! );
//! assert_eq!(report.folded, 1);
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::options::{Delimiter, EncodeOptions};
use crate::tokens::costs;
use crate::value::{Map, Value};

/// The type of the values in one column.
///
/// ```
/// use toon::table::{ColumnType, Table};
/// let t = Table::from_records(&toon::toon!([{"n": 1, "x": 1.5}, {"n": 2, "x": null}])).unwrap();
/// assert_eq!(t.column_types(), [ColumnType::Integer, ColumnType::Number]);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// Only nulls (or no rows).
    Null,
    /// Booleans.
    Bool,
    /// Integers only.
    Integer,
    /// Numbers, some with a fraction.
    Number,
    /// Strings.
    String,
    /// Objects.
    Object,
    /// Arrays.
    Array,
    /// More than one of the above (nulls aside).
    Mixed,
}

fn type_of(v: &Value) -> ColumnType {
    match v {
        Value::Null => ColumnType::Null,
        Value::Bool(_) => ColumnType::Bool,
        Value::Number(n) if n.is_f64() => ColumnType::Number,
        Value::Number(_) => ColumnType::Integer,
        Value::String(_) => ColumnType::String,
        Value::Array(_) => ColumnType::Array,
        Value::Object(_) => ColumnType::Object,
    }
}

fn merge(a: ColumnType, b: ColumnType) -> ColumnType {
    use ColumnType::*;
    match (a, b) {
        (Null, t) | (t, Null) => t,
        (Integer, Number) | (Number, Integer) => Number,
        (x, y) if x == y => x,
        _ => Mixed,
    }
}

/// A columnar view of an array of records: one field list, one row of values per record.
///
/// Fields are the union of the records' keys in order of first appearance; a record without
/// a field has `null` there (so a table does not tell an absent field from a null one).
///
/// ```
/// use toon::table::{ColumnType, Table};
/// #[derive(serde::Serialize)]
/// struct Item { sku: &'static str, qty: u32, note: Option<&'static str> }
/// let t = Table::from_records(&[
///     Item { sku: "A1", qty: 2, note: None },
///     Item { sku: "B2", qty: 1, note: Some("gift") },
/// ]).unwrap();
/// assert_eq!(t.fields(), ["sku", "qty", "note"]);
/// assert_eq!(t.column_types(), [ColumnType::String, ColumnType::Integer, ColumnType::String]);
/// assert_eq!(t.null_counts(), [0, 0, 1]);
/// assert_eq!(t.to_toon().unwrap(), "[2]{sku,qty,note}:\n  A1,2,null\n  B2,1,gift");
/// let json = t.to_columnar_json().unwrap();
/// assert_eq!(json, r#"{"fields":["sku","qty","note"],"rows":[["A1",2,null],["B2",1,"gift"]],"count":2}"#);
/// assert_eq!(Table::from_columnar_json(&json).unwrap(), t);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    fields: Vec<String>,
    rows: Vec<Vec<Value>>,
}

/// The columnar JSON shape: `{"fields":[...],"rows":[[...]...],"count":N}`.
#[derive(Serialize, Deserialize)]
struct Columnar {
    fields: Vec<String>,
    rows: Vec<Vec<Value>>,
    count: usize,
}

impl Table {
    /// Builds a table from any `Serialize` sequence of records (structs or maps).
    ///
    /// # Errors
    ///
    /// `records` is not an array of objects, or its `Serialize` implementation fails.
    pub fn from_records<T: ?Sized + Serialize>(records: &T) -> Result<Table> {
        match crate::to_value(records)? {
            Value::Array(items) => Table::from_values(items),
            other => Err(Error::data(format!(
                "a table needs an array of records, found a JSON {}",
                other.kind()
            ))),
        }
    }

    fn from_values(items: Vec<Value>) -> Result<Table> {
        let mut fields: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let Value::Object(map) = item else {
                return Err(Error::data(format!(
                    "record {i} is a JSON {}, not an object",
                    item.kind()
                )));
            };
            for key in map.keys() {
                if !index.contains_key(key) {
                    index.insert(key.to_owned(), fields.len());
                    fields.push(key.to_owned());
                }
            }
        }
        let rows = items
            .into_iter()
            .map(|item| {
                let mut row = vec![Value::Null; fields.len()];
                if let Value::Object(map) = item {
                    for (k, v) in map {
                        row[index[k.as_str()]] = v;
                    }
                }
                row
            })
            .collect();
        Ok(Table { fields, rows })
    }

    /// The field names.
    #[must_use]
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The rows, each with one value per field.
    #[must_use]
    pub fn rows(&self) -> &[Vec<Value>] {
        &self.rows
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there are no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The type of each column.
    #[must_use]
    pub fn column_types(&self) -> Vec<ColumnType> {
        (0..self.fields.len())
            .map(|j| {
                self.rows
                    .iter()
                    .fold(ColumnType::Null, |t, row| merge(t, type_of(&row[j])))
            })
            .collect()
    }

    /// The number of nulls in each column.
    #[must_use]
    pub fn null_counts(&self) -> Vec<usize> {
        (0..self.fields.len())
            .map(|j| self.rows.iter().filter(|row| row[j].is_null()).count())
            .collect()
    }

    /// The records as an array of objects.
    #[must_use]
    pub fn to_records(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|row| {
                    let mut map = Map::new();
                    for (k, v) in self.fields.iter().zip(row) {
                        map.insert(k.clone(), v.clone());
                    }
                    Value::Object(map)
                })
                .collect(),
        )
    }

    /// TOON of the records: tabular form when every cell is a primitive (§9.3).
    ///
    /// # Errors
    ///
    /// Encoding fails only where a cell cannot be encoded (it cannot for cells read from JSON or
    /// TOON).
    pub fn to_toon(&self) -> Result<String> {
        crate::to_string(&self.to_records())
    }

    /// TOON keyed tabular form (§9.5): an object from the values of column `key` (which must
    /// be unique strings) to the other fields.
    ///
    /// ```
    /// let t = toon::table::Table::from_records(&toon::toon!([
    ///     {"name": "dark", "on": true}, {"name": "beta", "on": false}
    /// ])).unwrap();
    /// assert_eq!(t.to_toon_keyed("name").unwrap(), "[2:]{on}:\n  dark: true\n  beta: false");
    /// ```
    ///
    /// # Errors
    ///
    /// `key` is not a column, or a row's value in it is not a string or repeats another's.
    pub fn to_toon_keyed(&self, key: &str) -> Result<String> {
        let j = self
            .fields
            .iter()
            .position(|f| f == key)
            .ok_or_else(|| Error::data(format!("no column `{key}`")))?;
        let mut out = Map::new();
        for row in &self.rows {
            let Value::String(name) = &row[j] else {
                return Err(Error::data(format!("column `{key}` must hold strings")));
            };
            let mut rest = Map::new();
            for (i, (f, v)) in self.fields.iter().zip(row).enumerate() {
                if i != j {
                    rest.insert(f.clone(), v.clone());
                }
            }
            if out.insert(name.clone(), Value::Object(rest)).is_some() {
                return Err(Error::data(format!(
                    "duplicate key {} in `{key}`",
                    crate::error::QuotedInput(name)
                )));
            }
        }
        crate::to_string(&Value::Object(out))
    }

    /// Columnar JSON: `{"fields":[...],"rows":[[...]...],"count":N}`, for clients that must
    /// stay on JSON but want the field names once.
    ///
    /// # Errors
    ///
    /// Never for a table built by this module; the `Result` is serde_json's.
    pub fn to_columnar_json(&self) -> Result<String> {
        crate::json::to_string(&Columnar {
            fields: self.fields.clone(),
            rows: self.rows.clone(),
            count: self.rows.len(),
        })
        .map_err(|e| Error::data(e.to_string()))
    }

    /// Reads columnar JSON back; checks the row widths and the count.
    ///
    /// # Errors
    ///
    /// Invalid JSON or not the columnar shape, a `count` that differs from the number of rows,
    /// or a row whose width differs from the number of fields.
    pub fn from_columnar_json(text: &str) -> Result<Table> {
        let c: Columnar = crate::json::from_str(text).map_err(|e| Error::data(e.to_string()))?;
        if c.count != c.rows.len() {
            return Err(Error::data(format!(
                "count is {} but there are {} rows",
                c.count,
                c.rows.len()
            )));
        }
        if let Some(i) = c.rows.iter().position(|r| r.len() != c.fields.len()) {
            return Err(Error::data(format!(
                "row {i} has {} values for {} fields",
                c.rows[i].len(),
                c.fields.len()
            )));
        }
        Ok(Table {
            fields: c.fields,
            rows: c.rows,
        })
    }
}

/// Which [`tabularize`] transforms to apply. All are off by default; each is lossy where noted.
///
/// ```
/// use toon::table::Tabularize;
/// let only_fill = Tabularize { fill_absent: true, ..Tabularize::default() };
/// assert!(!only_fill.drop_null_columns);
/// assert_eq!(Tabularize::all().fold_objects, true);
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tabularize {
    /// Give every record of an array the fields any record has, `null` where absent.
    /// Lossy: an absent field and a `null` one read back the same.
    pub fill_absent: bool,
    /// Where a field holds an object in some records and is absent or `null` in others, give
    /// those an object of `null`s with the same fields (and fill the objects' absent fields),
    /// so the field becomes a nested field group. Lossy: an absent or `null` object reads back
    /// as an object of `null`s.
    pub fold_objects: bool,
    /// Remove columns that are `null` in every record. Lossy: those fields disappear.
    pub drop_null_columns: bool,
}

impl Tabularize {
    /// Every transform.
    #[must_use]
    pub fn all() -> Self {
        Tabularize {
            fill_absent: true,
            fold_objects: true,
            drop_null_columns: true,
        }
    }
}

/// What [`tabularize`] changed.
///
/// ```
/// use toon::table::{tabularize, Tabularize};
/// let v = toon::toon!([{"a": 1, "b": 2, "c": null}, {"a": 2, "c": null}]);
/// let (_, report) = tabularize(&v, &Tabularize::all());
/// assert_eq!((report.arrays, report.filled), (1, 1));
/// assert_eq!(report.dropped, ["c"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TabularizeReport {
    /// Arrays of records that were rewritten.
    pub arrays: usize,
    /// Absent fields filled with `null`.
    pub filled: usize,
    /// Absent or `null` objects replaced by objects of `null`s.
    pub folded: usize,
    /// Columns dropped because they were all `null`, as `path.field`.
    pub dropped: Vec<String>,
}

/// Applies the chosen transforms to every array of objects in `value` (at any depth).
///
/// ```
/// use toon::table::{tabularize, Tabularize};
/// let logs = toon::toon!({"logs": [{"at": 1, "err": {"code": 7}}, {"at": 2}]});
/// assert_eq!(toon::to_string(&logs).unwrap().lines().count(), 5); // a list: not uniform
/// let (table, _) = tabularize(&logs, &Tabularize::all());
/// assert_eq!(toon::to_string(&table).unwrap(), "logs[2]{at,err{code}}:\n  1,7\n  2,null");
/// ```
pub fn tabularize(value: &Value, options: &Tabularize) -> (Value, TabularizeReport) {
    let mut out = value.clone();
    let mut report = TabularizeReport::default();
    walk(&mut out, options, &mut report, &mut String::new());
    (out, report)
}

fn walk(v: &mut Value, options: &Tabularize, report: &mut TabularizeReport, path: &mut String) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(child, options, report, path);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                walk(item, options, report, path);
            }
            if items.len() > 1
                && items.iter().all(Value::is_object)
                && uniform_records(items, options, report, path)
            {
                report.arrays += 1;
            }
        }
        _ => {}
    }
}

/// Rewrites one array of records; true if anything changed.
fn uniform_records(
    items: &mut [Value],
    options: &Tabularize,
    report: &mut TabularizeReport,
    path: &str,
) -> bool {
    let before = (report.filled, report.folded, report.dropped.len());
    let mut fields: Vec<String> = Vec::new();
    for item in items.iter() {
        if let Value::Object(map) = item {
            for k in map.keys() {
                if !fields.iter().any(|f| f == k) {
                    fields.push(k.to_owned());
                }
            }
        }
    }
    if options.fold_objects {
        for field in &fields {
            fold_field(items, field, report);
        }
    }
    if options.drop_null_columns {
        let mut dropped = Vec::new();
        for field in &fields {
            let all_null = items.iter().all(|item| match item.get(field.as_str()) {
                None | Some(Value::Null) => true,
                Some(_) => false,
            });
            if all_null {
                for item in items.iter_mut() {
                    if let Value::Object(map) = item {
                        map.remove(field.as_str());
                    }
                }
                report.dropped.push(if path.is_empty() {
                    field.clone()
                } else {
                    format!("{path}.{field}")
                });
                dropped.push(field.clone());
            }
        }
        fields.retain(|f| !dropped.contains(f));
    }
    if options.fill_absent {
        for item in items.iter_mut() {
            if let Value::Object(map) = item {
                fill_in_order(map, &fields, report);
            }
        }
    }
    before != (report.filled, report.folded, report.dropped.len())
}

/// Puts `map`'s fields in `fields` order, adding `null` for the missing ones.
fn fill_in_order(map: &mut Map, fields: &[String], report: &mut TabularizeReport) {
    let present: Vec<&String> = fields
        .iter()
        .filter(|f| map.contains_key(f.as_str()))
        .collect();
    if present.len() == fields.len() && map.len() == fields.len() {
        return;
    }
    let mut ordered = Map::new();
    for f in fields {
        match map.remove(f.as_str()) {
            Some(v) => {
                ordered.insert(f.clone(), v);
            }
            None => {
                report.filled += 1;
                ordered.insert(f.clone(), Value::Null);
            }
        }
    }
    for (k, v) in std::mem::take(map) {
        ordered.insert(k, v);
    }
    *map = ordered;
}

/// If `field` holds a flat object in some records and is absent/null in the others, gives
/// every record an object with the union of sub-fields (null where missing).
fn fold_field(items: &mut [Value], field: &str, report: &mut TabularizeReport) {
    let mut sub: Vec<String> = Vec::new();
    let mut any_object = false;
    for item in items.iter() {
        match item.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Object(obj)) if obj.values().all(is_primitive) && !obj.is_empty() => {
                any_object = true;
                for k in obj.keys() {
                    if !sub.iter().any(|f| f == k) {
                        sub.push(k.to_owned());
                    }
                }
            }
            Some(_) => return,
        }
    }
    if !any_object {
        return;
    }
    for item in items.iter_mut() {
        let Value::Object(map) = item else { continue };
        match map.get_mut(field) {
            Some(Value::Object(obj)) => fill_in_order(obj, &sub, &mut TabularizeReport::default()),
            slot => {
                let nulls: Map = sub.iter().map(|k| (k.clone(), Value::Null)).collect();
                match slot {
                    Some(v) => *v = Value::Object(nulls),
                    None => {
                        map.insert(field.to_owned(), Value::Object(nulls));
                    }
                }
                report.folded += 1;
            }
        }
    }
}

fn is_primitive(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// One way a value is written: TOON with a delimiter, or compact JSON (JSON without
/// whitespace). What [`auto`] chooses among, and what [`render::Rendered`](crate::render::Rendered)
/// says was written (the vocabulary: [`render`](crate::render#which-encoding)).
///
/// ```
/// use toon::table::{auto, Rendering};
/// let choice = auto(&toon::toon!([1, 2, 3])).unwrap();
/// assert!(matches!(choice.rendering, Rendering::Toon(_) | Rendering::CompactJson));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rendering {
    /// TOON with this delimiter.
    Toon(Delimiter),
    /// JSON without whitespace.
    CompactJson,
}

/// What [`auto`] chose: the cheapest rendering, its text, and what it beat.
///
/// ```
/// let choice = toon::table::auto(&toon::toon!({"a": {"b": {"c": [1, {"d": 2}]}}})).unwrap();
/// assert_eq!(choice.text, r#"{"a":{"b":{"c":[1,{"d":2}]}}}"#);
/// assert!(choice.reason().starts_with("chose compact JSON"));
/// assert_eq!(choice.candidates[0].1, choice.tokens);
/// ```
#[derive(Clone, Debug)]
pub struct Choice {
    /// The cheapest rendering.
    pub rendering: Rendering,
    /// The value in that rendering.
    pub text: String,
    /// Tokens of `text`: exact o200k with the `tiktoken` feature, else by
    /// [`tokens::estimate_costs`](crate::tokens::estimate_costs).
    pub tokens: usize,
    /// Every candidate and its cost in tokens, cheapest first.
    pub candidates: Vec<(Rendering, usize)>,
}

impl Choice {
    /// One line: the choice and what it beat (`TOON (tab): 8937 tokens; compact JSON 11640`).
    #[must_use]
    pub fn reason(&self) -> String {
        let name = |r: &Rendering| match r {
            Rendering::Toon(Delimiter::Comma) => "TOON (comma)".to_owned(),
            Rendering::Toon(Delimiter::Tab) => "TOON (tab)".to_owned(),
            Rendering::Toon(Delimiter::Pipe) => "TOON (pipe)".to_owned(),
            Rendering::CompactJson => "compact JSON".to_owned(),
        };
        let others: Vec<String> = self.candidates[1..]
            .iter()
            .map(|(r, n)| format!("{} {n}", name(r)))
            .collect();
        format!(
            "chose {}: ~{} tokens (vs {})",
            name(&self.rendering),
            self.tokens,
            others.join(", ")
        )
    }
}

/// "auto": renders `value` in whichever lossless rendering costs the fewest tokens — exact
/// o200k counts with the `tiktoken` feature,
/// [`tokens::estimate_costs`](crate::tokens::estimate_costs) without — of TOON with a comma,
/// tab or pipe delimiter, and compact JSON ([`Output::Auto`](crate::render::Output::Auto),
/// `toon --auto`). Ties go to compact JSON, then to the comma. [`Choice::candidates`] lists
/// every cost.
///
/// ```
/// use toon::table::{auto, Rendering};
/// let rows = toon::toon!({"rows": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]});
/// assert!(matches!(auto(&rows).unwrap().rendering, Rendering::Toon(_)));
/// let deep = toon::toon!({"a": {"b": {"c": {"d": [1, {"e": [{"f": 1}, 2]}]}}}});
/// assert_eq!(auto(&deep).unwrap().rendering, Rendering::CompactJson);
/// ```
///
/// # Errors
/// When `value` cannot be serialized (a map with non-string keys, a failing `Serialize`).
pub fn auto<T: ?Sized + Serialize>(value: &T) -> Result<Choice> {
    let json = crate::json::to_string(value).map_err(|e| Error::data(e.to_string()))?;
    let mut texts = vec![(Rendering::CompactJson, json)];
    for d in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
        let text = crate::to_string_with(value, &EncodeOptions::new().delimiter(d))?;
        texts.push((Rendering::Toon(d), text));
    }
    let all: Vec<&str> = texts.iter().map(|(_, text)| text.as_str()).collect();
    let mut scored: Vec<(Rendering, usize, String)> = costs(&all)
        .into_iter()
        .zip(texts)
        .map(|(cost, (rendering, text))| (rendering, cost, text))
        .collect();
    // Stable: ties keep the order above.
    scored.sort_by_key(|(_, n, _)| *n);
    let list = scored.iter().map(|(r, n, _)| (*r, *n)).collect();
    let (rendering, tokens, text) = scored.swap_remove(0);
    Ok(Choice {
        rendering,
        text,
        tokens,
        candidates: list,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toon;

    #[test]
    fn compact_json_prints_numbers_as_javascript_does() {
        // §2's numbers as `JSON.stringify` writes them, as `toon -d` and `toon::json` do.
        let deep = toon!({"a": {"b": {"c": {"d": [1.0, {"e": [{"f": -0.0}, 1e-7, 2.5]}]}}}});
        let chosen = auto(&deep).unwrap();
        assert_eq!(chosen.rendering, Rendering::CompactJson);
        assert_eq!(
            chosen.text,
            r#"{"a":{"b":{"c":{"d":[1,{"e":[{"f":0},1e-7,2.5]}]}}}}"#
        );
        let rendered = crate::render::Pipeline::new()
            .output(crate::render::Output::CompactJson)
            .render(deep)
            .unwrap();
        assert_eq!(rendered.text, chosen.text);
    }

    #[test]
    fn tabularize_fills_folds_and_drops() {
        let v = toon!({"items": [
            {"id": 1, "err": {"code": 5}, "gone": null},
            {"id": 2, "gone": null},
            {"err": {"msg": "x"}, "id": 3}
        ]});
        let (out, report) = tabularize(&v, &Tabularize::all());
        assert_eq!(
            crate::to_string(&out).unwrap(),
            "items[3]{id,err{code,msg}}:\n  1,5,null\n  2,null,null\n  3,null,x"
        );
        assert_eq!(report.dropped, ["items.gone"]);
        assert_eq!(report.folded, 1);
        assert_eq!(report.arrays, 1);
    }

    #[test]
    fn tabularize_off_changes_nothing() {
        let v = toon!({"items": [{"id": 1, "x": 2}, {"id": 2}]});
        let (out, report) = tabularize(&v, &Tabularize::default());
        assert_eq!(out, v);
        assert_eq!(report, TabularizeReport::default());
    }

    #[test]
    fn columnar_json_rejects_inconsistent_input() {
        assert!(Table::from_columnar_json(r#"{"fields":["a"],"rows":[[1,2]],"count":1}"#).is_err());
        assert!(Table::from_columnar_json(r#"{"fields":["a"],"rows":[[1]],"count":2}"#).is_err());
        assert!(Table::from_records(&toon!({"a": 1})).is_err());
        assert!(Table::from_records(&toon!([1, 2])).is_err());
    }

    #[test]
    fn auto_never_loses_to_its_candidates() {
        for v in [
            toon!({"a": [1, 2, 3]}),
            toon!({"rows": [{"x": "a,b", "y": 1}, {"x": "c,d", "y": 2}]}),
            toon!([[1, [2, [3]]], {"k": {}}]),
        ] {
            let a = auto(&v).unwrap();
            assert!(a.candidates.iter().all(|(_, n)| a.tokens <= *n));
            assert_eq!(a.tokens, crate::tokens::cost(&a.text));
        }
    }
}
