//! Any JSON value in compact bytes, and back: what a share link's merged view
//! (share/twin.rs) carries, whatever fields the merged pair has.
//!
//! Lossless: every value read back is the value written (a float's bits, an integer's
//! kind). What makes it compact is structure, not rounding:
//! - an array of objects with the same keys is a table, written column by column, so a
//!   key is written once per table, not once per row;
//! - a column of numbers is written as the differences between neighbours (zigzag
//!   LEB128), divided by their common factor; floats that are exact decimals (a number
//!   of µs, a ms to three places, what the engine rounds to) as integers at their
//!   decimal scale, any other float as its eight bytes;
//! - a key or a text found in the writer's word list (`Words`) is written as its index
//!   there: the field names and closed vocabularies of what is packed cost a byte each.
//!   Any other is written out, so the list only saves room: a value with keys it does
//!   not know packs and reads back the same. The list is append-only (bytes written
//!   with it name words by position);
//! - deflate (bytes.rs), after this, finds the repeated texts.
//!
//! The reader never trusts a count: every one is bounded by the bytes that remain and
//! by [`Limits`], nesting by [`MAX_DEPTH`], and a float read is finite, so hostile bytes
//! give a `DecodeError` naming where, never a panic or an unbounded allocation.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::bytes::{Reader, Writer};
use crate::error::DecodeError;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
/// A negative integer v, written as −1 − v.
const NINT: u8 = 4;
/// A float that is an exact decimal: its scale k, then v·10^k as a zigzag integer.
const DECIMAL: u8 = 5;
const FLOAT: u8 = 6;
const STRING: u8 = 7;
const ARRAY: u8 = 8;
const OBJECT: u8 = 9;
/// Rows of objects with the same keys: rows, keys, then one column per key.
const TABLE: u8 = 10;

/// Column kinds: any values, each tagged; integers; decimals at one scale; raw floats.
const COLUMN_ANY: u8 = 0;
const COLUMN_INT: u8 = 1;
const COLUMN_DECIMAL: u8 = 2;
const COLUMN_FLOAT: u8 = 3;

/// Nesting deeper than this is refused (a merged pair nests five levels).
pub const MAX_DEPTH: usize = 32;
/// Largest decimal scale tried: 10^-12 (ps in s, fs in ms), beyond any time the engine keeps.
const MAX_SCALE: u32 = 12;
/// Integers of a decimal column stay within f64's exact range.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
const POW10: [f64; 13] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12];

/// Words written as their index (module doc): append-only.
pub type Words = &'static [&'static str];

/// What a reader accepts: caps on texts and on the number of values.
#[derive(Clone, Copy)]
pub struct Limits {
    /// Longest string (bytes) and key.
    pub string: usize,
    pub key: usize,
    /// Values in all, every scalar and container counted.
    pub values: usize,
}

// ------------------------------------------------------------------------ writing

/// Writes values with a word list.
pub struct Packer {
    index: HashMap<&'static str, u64>,
}

impl Packer {
    pub fn new(words: Words) -> Packer {
        Packer { index: words.iter().enumerate().map(|(i, w)| (*w, i as u64 + 1)).collect() }
    }

    /// A key or text: its index + 1 in the word list, or 0 and the text.
    fn text(&self, w: &mut Writer, s: &str) {
        match self.index.get(s) {
            Some(&i) => w.uvarint(i),
            None => {
                w.uvarint(0);
                w.str(s);
            }
        }
    }

    pub fn write(&self, w: &mut Writer, v: &Value) {
        match v {
            Value::Null => w.byte(NULL),
            Value::Bool(b) => w.byte(if *b { TRUE } else { FALSE }),
            Value::Number(n) => number(w, n),
            Value::String(s) => {
                w.byte(STRING);
                self.text(w, s);
            }
            Value::Array(items) => match table_keys(items) {
                Some(keys) => self.table(w, items, &keys),
                None => {
                    w.byte(ARRAY);
                    w.uvarint(items.len() as u64);
                    items.iter().for_each(|x| self.write(w, x));
                }
            },
            Value::Object(map) => {
                w.byte(OBJECT);
                w.uvarint(map.len() as u64);
                for (k, x) in map {
                    self.text(w, k);
                    self.write(w, x);
                }
            }
        }
    }

    fn table(&self, w: &mut Writer, rows: &[Value], keys: &[String]) {
        w.byte(TABLE);
        w.uvarint(rows.len() as u64);
        w.uvarint(keys.len() as u64);
        keys.iter().for_each(|k| self.text(w, k));
        for k in keys {
            let column: Vec<&Value> = rows.iter().map(|r| &r[k.as_str()]).collect();
            self.column(w, &column);
        }
    }

    fn column(&self, w: &mut Writer, column: &[&Value]) {
        let numbers: Option<Vec<Option<&Number>>> = column.iter().map(|v| match v {
            Value::Null => Some(None),
            Value::Number(n) => Some(Some(n)),
            _ => None,
        }).collect();
        let Some(numbers) = numbers.filter(|n| n.iter().any(Option::is_some)) else {
            w.byte(COLUMN_ANY);
            column.iter().for_each(|v| self.write(w, v));
            return;
        };
        let present: Vec<&Number> = numbers.iter().flatten().copied().collect();
        let ints: Option<Vec<i64>> = present.iter().map(|n| n.as_i64()).collect();
        let floats: Option<Vec<f64>> = present.iter().map(|n| n.is_f64().then(|| n.as_f64()).flatten()).collect();
        match (ints, floats) {
            (Some(ints), _) => {
                w.byte(COLUMN_INT);
                nulls(w, &numbers);
                factored(w, &ints);
            }
            (None, Some(floats)) => match decimal_scale(floats.iter().copied()) {
                Some(k) => {
                    w.byte(COLUMN_DECIMAL);
                    nulls(w, &numbers);
                    w.byte(k as u8);
                    factored(w, &floats.iter().map(|&f| scaled(f, k)).collect::<Vec<_>>());
                }
                None => {
                    w.byte(COLUMN_FLOAT);
                    nulls(w, &numbers);
                    floats.iter().for_each(|&f| w.f64(f));
                }
            },
            // Integers beyond i64, or integers and floats mixed: each value tagged.
            (None, None) => {
                w.byte(COLUMN_ANY);
                column.iter().for_each(|v| self.write(w, v));
            }
        }
    }
}

fn number(w: &mut Writer, n: &Number) {
    if let Some(u) = n.as_u64() {
        w.byte(UINT);
        w.uvarint(u);
    } else if let Some(i) = n.as_i64() {
        w.byte(NINT);
        w.uvarint((-1 - i) as u64);
    } else {
        let f = n.as_f64().unwrap_or(0.0);
        match decimal_scale(std::iter::once(f)) {
            Some(k) => {
                w.byte(DECIMAL);
                w.byte(k as u8);
                w.svarint(scaled(f, k));
            }
            None => {
                w.byte(FLOAT);
                w.f64(f);
            }
        }
    }
}

/// The keys shared by every row, when `items` is a table (two rows or more, all objects
/// with the same keys in the same order).
fn table_keys(items: &[Value]) -> Option<Vec<String>> {
    let first = items.first()?.as_object()?;
    if items.len() < 2 {
        return None;
    }
    let keys: Vec<String> = first.keys().cloned().collect();
    let same = |v: &Value| v.as_object().is_some_and(|m| m.len() == keys.len() && m.keys().zip(&keys).all(|(a, b)| a == b));
    items.iter().all(same).then_some(keys)
}

/// The smallest scale k at which every value is an exact decimal (v = round(v·10^k)/10^k,
/// bit for bit, within f64's exact integers), if any.
fn decimal_scale(values: impl Iterator<Item = f64> + Clone) -> Option<u32> {
    (0..=MAX_SCALE).find(|&k| {
        values.clone().all(|v| {
            let x = (v * POW10[k as usize]).round();
            x.abs() <= MAX_EXACT && x / POW10[k as usize] == v && !(v == 0.0 && v.is_sign_negative())
        })
    })
}

fn scaled(v: f64, k: u32) -> i64 {
    (v * POW10[k as usize]).round() as i64
}

/// 0: no nulls; 1 and a bitmap (bit set: null), rows in order.
fn nulls(w: &mut Writer, numbers: &[Option<&Number>]) {
    if numbers.iter().all(Option::is_some) {
        w.byte(0);
        return;
    }
    w.byte(1);
    for chunk in numbers.chunks(8) {
        w.byte(chunk.iter().enumerate().fold(0u8, |b, (i, n)| if n.is_none() { b | 1 << i } else { b }));
    }
}

/// The first value, then the greatest common factor of the differences between
/// neighbours (1 when there is none), then each difference divided by it: a time on a
/// grid, or a delay in steps of 13 µs, is one small number a row.
fn factored(w: &mut Writer, values: &[i64]) {
    let steps = || values.windows(2).map(|p| p[1].wrapping_sub(p[0]));
    let g = steps().fold(0u64, |g, d| gcd(g, d.unsigned_abs())).max(1);
    let g = if g > i64::MAX as u64 { 1 } else { g as i64 };
    w.svarint(values.first().copied().unwrap_or(0));
    w.uvarint(g as u64);
    steps().for_each(|d| w.svarint(d / g));
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

// ------------------------------------------------------------------------ reading

/// Reads one value written with `words`.
pub fn read(r: &mut Reader, limits: &Limits, words: Words) -> Result<Value, DecodeError> {
    let mut budget = limits.values;
    Unpacker { limits, words, budget: &mut budget }.value(r, 0)
}

/// A key or text: a word of the list, or written out.
fn text(r: &mut Reader, words: Words, max: usize, what: &str) -> Result<String, DecodeError> {
    match r.uvarint(what)? {
        0 => Ok(r.str(max, what)?.to_string()),
        i => words.get(i as usize - 1).map(|w| w.to_string()).ok_or_else(|| r.fail(format!("{what} names word {i} of a list of {}", words.len()))),
    }
}

struct Unpacker<'a> {
    limits: &'a Limits,
    words: Words,
    /// Values still allowed.
    budget: &'a mut usize,
}

impl Unpacker<'_> {
    fn spend(&mut self, r: &Reader, n: usize) -> Result<(), DecodeError> {
        if n > *self.budget {
            return Err(r.fail("it holds more values than a merged view may"));
        }
        *self.budget -= n;
        Ok(())
    }

    fn value(&mut self, r: &mut Reader, depth: usize) -> Result<Value, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(r.fail(format!("its values nest deeper than {MAX_DEPTH} levels")));
        }
        self.spend(r, 1)?;
        let tag = r.byte("a value")?;
        Ok(match tag {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UINT => Value::from(r.uvarint("a number")?),
            NINT => {
                let m = r.uvarint("a number")?;
                let v = i64::try_from(m).map_err(|_| r.fail("a negative number is out of range"))?;
                Value::from(-1 - v)
            }
            DECIMAL => {
                let k = scale(r)?;
                let x = r.svarint("a number")?;
                float(r, unscaled(x, k))?
            }
            FLOAT => {
                let f = r.f64("a number")?;
                float(r, f)?
            }
            STRING => Value::String(text(r, self.words, self.limits.string, "a text")?),
            ARRAY => {
                let n = r.count(r.remaining() as u64, "an array's length")? as usize;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(r, depth + 1)?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let n = r.count(r.remaining() as u64, "an object's size")? as usize;
                let mut map = Map::new();
                for _ in 0..n {
                    let key = text(r, self.words, self.limits.key, "a key")?;
                    let v = self.value(r, depth + 1)?;
                    if map.insert(key, v).is_some() {
                        return Err(r.fail("an object names one key twice"));
                    }
                }
                Value::Object(map)
            }
            TABLE => self.table(r, depth)?,
            other => return Err(r.fail(format!("unknown value tag {other}"))),
        })
    }

    fn table(&mut self, r: &mut Reader, depth: usize) -> Result<Value, DecodeError> {
        // Every row costs at least a bit of the bytes that follow (a null in a bitmap).
        let rows = r.count(r.remaining() as u64 * 8, "a table's rows")? as usize;
        let width = r.count(r.remaining() as u64, "a table's keys")? as usize;
        self.spend(r, rows.saturating_mul(width.max(1)))?;
        let mut keys = Vec::with_capacity(width);
        for _ in 0..width {
            let key = text(r, self.words, self.limits.key, "a key")?;
            if keys.contains(&key) {
                return Err(r.fail("a table names one key twice"));
            }
            keys.push(key);
        }
        let mut table: Vec<Map<String, Value>> = vec![Map::new(); rows];
        for key in &keys {
            let column = self.column(r, depth, rows)?;
            for (row, v) in table.iter_mut().zip(column) {
                row.insert(key.clone(), v);
            }
        }
        Ok(Value::Array(table.into_iter().map(Value::Object).collect()))
    }

    fn column(&mut self, r: &mut Reader, depth: usize, rows: usize) -> Result<Vec<Value>, DecodeError> {
        let kind = r.byte("a column")?;
        if kind == COLUMN_ANY {
            // The table's rows were counted already: its cells are not counted again.
            *self.budget += rows;
            return (0..rows).map(|_| self.value(r, depth + 2)).collect();
        }
        let present = read_nulls(r, rows)?;
        let count = present.iter().filter(|&&p| p).count();
        let numbers: Vec<Value> = match kind {
            COLUMN_INT => read_factored(r, count)?.into_iter().map(Value::from).collect(),
            COLUMN_DECIMAL => {
                let k = scale(r)?;
                read_factored(r, count)?.into_iter().map(|x| float(r, unscaled(x, k))).collect::<Result<_, _>>()?
            }
            COLUMN_FLOAT => (0..count).map(|_| r.f64("a number").and_then(|f| float(r, f))).collect::<Result<_, _>>()?,
            other => return Err(r.fail(format!("unknown column kind {other}"))),
        };
        let mut numbers = numbers.into_iter();
        Ok(present.into_iter().map(|p| if p { numbers.next().unwrap_or(Value::Null) } else { Value::Null }).collect())
    }
}

fn scale(r: &mut Reader) -> Result<u32, DecodeError> {
    let k = r.byte("a decimal scale")? as u32;
    if k > MAX_SCALE {
        return Err(r.fail(format!("a decimal scale of {k} places is more than {MAX_SCALE}")));
    }
    Ok(k)
}

fn unscaled(x: i64, k: u32) -> f64 {
    x as f64 / POW10[k as usize]
}

fn float(r: &Reader, f: f64) -> Result<Value, DecodeError> {
    Number::from_f64(f).map(Value::Number).ok_or_else(|| r.fail("a number is not finite"))
}

/// Which rows hold a number (the rest are null).
fn read_nulls(r: &mut Reader, rows: usize) -> Result<Vec<bool>, DecodeError> {
    match r.byte("a column's nulls")? {
        0 => Ok(vec![true; rows]),
        1 => {
            let bitmap = r.bytes(rows.div_ceil(8), "a column's nulls")?;
            Ok((0..rows).map(|i| bitmap[i / 8] & (1 << (i % 8)) == 0).collect())
        }
        other => Err(r.fail(format!("unknown null marker {other}"))),
    }
}

/// `factored`'s numbers: the first, the factor, then the differences.
fn read_factored(r: &mut Reader, count: usize) -> Result<Vec<i64>, DecodeError> {
    if count > r.remaining() {
        return Err(r.fail(format!("a column of {count} numbers is longer than the bytes that follow")));
    }
    let first = r.svarint("a number")?;
    let g = r.uvarint("a column's factor")?;
    let g = i64::try_from(g).ok().filter(|&g| g > 0).ok_or_else(|| r.fail(format!("a column's factor of {g} is not a positive integer")))?;
    let mut out = Vec::with_capacity(count);
    let mut last = first;
    for k in 0..count {
        if k > 0 {
            last = last.wrapping_add(r.svarint("a number")?.wrapping_mul(g));
        }
        out.push(last);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMITS: Limits = Limits { string: 1000, key: 64, values: 10_000 };
    const WORDS: Words = &["t", "minMs", "rows"];

    fn packed(v: &Value) -> Vec<u8> {
        let mut w = Writer::default();
        Packer::new(WORDS).write(&mut w, v);
        w.buf
    }

    fn read_all(bytes: &[u8]) -> Result<Value, DecodeError> {
        read(&mut Reader::new(bytes), &LIMITS, WORDS)
    }

    fn round_trip(v: &Value) -> Value {
        let buf = packed(v);
        let mut r = Reader::new(&buf);
        let back = read(&mut r, &LIMITS, WORDS).expect("reads back");
        assert_eq!(r.remaining(), 0);
        back
    }

    /// Every kind of value comes back as it went, floats bit for bit and integers as
    /// integers (a u32 field must not come back as 3.0).
    #[test]
    fn values_come_back_as_they_went() {
        let v = json!({
            "a": [1, 2, 3], "b": -7, "c": 0.010511, "d": 40.931999999999995, "e": null, "f": "x→y",
            "rows": [
                {"t": 0.000031, "w": 0.004522043, "n": 1, "o": null, "s": "a", "z": -0.0},
                {"t": 0.009075086000000001, "w": 0.004522043, "n": 10, "o": 5.25, "s": "b", "z": 1e300},
                {"t": 1.5, "w": 0.004522043, "n": 11, "o": null, "s": "c", "z": 2.0}
            ],
            "mixed": [{"k": 1}, {"k": 1.5}, {"k": u64::MAX}],
            "big": i64::MIN, "huge": u64::MAX
        });
        let back = round_trip(&v);
        assert_eq!(back, v);
        let z = back["rows"][0]["z"].as_f64().unwrap();
        assert!(z == 0.0 && z.is_sign_negative(), "-0.0 keeps its sign");
        assert!(back["rows"][1]["n"].is_u64() && back["rows"][1]["o"].is_f64());
    }

    /// A table is written once per key: 100 rows of µs times and ms delays take 325
    /// bytes before deflate, about three a row (one each for the time's step of 4522 µs,
    /// the delay's change in its steps of 13 µs and the count's change), against about
    /// 40 a row as JSON.
    #[test]
    fn a_table_of_decimals_is_small() {
        // As the engine rounds them: whole µs and µs in ms (k·4522 µs, 5 ms + k mod 7 × 13 µs).
        let rows: Vec<Value> = (0..100).map(|k| json!({"t": (k * 4522) as f64 / 1e6, "minMs": (5000 + (k % 7) * 13) as f64 / 1e3, "count": 2})).collect();
        assert_eq!(packed(&Value::Array(rows.clone())).len(), 325);
        assert_eq!(round_trip(&Value::Array(rows)).as_array().unwrap().len(), 100);
    }

    /// Words of the list and texts outside it read back alike.
    #[test]
    fn words_out_of_the_list_are_written_out() {
        let v = json!({"t": "minMs", "other": "rows", "new key": "new text"});
        assert_eq!(round_trip(&v), v);
        // A word index past the list is refused.
        assert!(read_all(&[STRING, 9]).unwrap_err().message.contains("names word 9 of a list of 3"));
    }

    /// Cut anywhere, flipped anywhere, or claiming more than it holds, the bytes give an
    /// error or some value within the limits, never a panic.
    #[test]
    fn hostile_bytes_never_panic() {
        let v = json!({"rows": [{"t": 1.5, "n": 1, "s": "a"}, {"t": 2.25, "n": null, "s": "b"}], "x": [1, "y", null, 3.14159]});
        let buf = packed(&v);
        for cut in 0..buf.len() {
            assert!(read_all(&buf[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..buf.len() {
            for b in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut bad = buf.clone();
                bad[i] = b;
                let _ = read_all(&bad);
            }
        }
        // A table claiming 2^40 rows, an array of 2^60 items, nesting 10^5 deep.
        let mut huge = Writer::default();
        huge.byte(TABLE);
        huge.uvarint(1 << 40);
        assert!(read_all(&huge.buf).is_err());
        let mut long = Writer::default();
        long.byte(ARRAY);
        long.uvarint(1 << 60);
        assert!(read_all(&long.buf).is_err());
        let deep = [ARRAY, 1].repeat(100_000);
        let e = read_all(&deep).unwrap_err();
        assert!(e.message.contains("deeper than 32"), "{}", e.message);
        // NaN as raw bits, a decimal scale of 200 places, a factor of 0.
        let mut nan = Writer::default();
        nan.byte(FLOAT);
        nan.f64(f64::NAN);
        assert!(read_all(&nan.buf).unwrap_err().message.contains("not finite"));
        assert!(read_all(&[DECIMAL, 200, 2]).unwrap_err().message.contains("200 places"));
        let zero = [TABLE, 2, 1, 1, COLUMN_INT, 0, 0, 0, 2];
        assert!(read_all(&zero).unwrap_err().message.contains("factor of 0"));
    }

    /// The value budget caps what a small input may expand to: a table of 8 rows × 8000
    /// keys is refused before any row is built.
    #[test]
    fn the_value_budget_holds() {
        let mut w = Writer::default();
        w.byte(TABLE);
        w.uvarint(8);
        w.uvarint(8000);
        for k in 0..8000 {
            w.uvarint(0);
            w.str(&k.to_string());
        }
        let e = read_all(&w.buf).unwrap_err();
        assert!(e.message.contains("more values"), "{}", e.message);
    }
}
