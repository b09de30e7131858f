//! `--set KEY=VALUE`: changes to a topology file before it is read, for `ntsim run` and
//! `ntsim sweep`.
//!
//! `KEY` is a dotted path into the file's tables (docs/network.md):
//! * `seed=7`, `max_cycles=500000`: a top-level setting;
//! * `host.rtt_pkts=6`: the setting in **every** `[[host]]` (every element of an array of
//!   tables);
//! * `host[h1].rtt_pkts=6`: in the element whose `name` is `h1`; `host[2].rtt_pkts=6`: in
//!   the third (from 0);
//! * `output.pcap=["h0-s0:0"]`: a table the file does not have yet is created.
//!
//! `VALUE` is read as a TOML value (`6`, `0.5`, `true`, `"ndp"`, `[1, 2]`); anything that
//! is not one is taken as a string, so `switch.mode=trim` works without quotes. A key
//! that matches nothing (`host[h9]`, an empty array) is an error; a key the topology does
//! not know is the topology's error (every table refuses unknown fields), so a misspelt
//! `--set` never runs silently unchanged.
use crate::net::NetConfig;
use serde::Deserialize;
use toml::{Table, Value};

/// One segment of a key: a name and an optional selector (`[h1]`, `[2]`).
#[derive(Debug, PartialEq)]
struct Seg<'a> {
    name: &'a str,
    sel: Option<&'a str>,
}

/// The key's segments, or a one-line error.
fn segments(key: &str) -> Result<Vec<Seg<'_>>, String> {
    let mut out = vec![];
    let mut rest = key;
    loop {
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("--set {key}: {name:?} is not a setting's name"));
        }
        rest = &rest[end..];
        let mut sel = None;
        if let Some(r) = rest.strip_prefix('[') {
            let close = r
                .find(']')
                .ok_or_else(|| format!("--set {key}: a '[' without its ']'"))?;
            if close == 0 {
                return Err(format!("--set {key}: empty []"));
            }
            sel = Some(&r[..close]);
            rest = &r[close + 1..];
        }
        out.push(Seg { name, sel });
        if rest.is_empty() {
            return Ok(out);
        }
        rest = rest
            .strip_prefix('.')
            .ok_or_else(|| format!("--set {key}: expected '.' after ']'"))?;
    }
}

/// `VALUE` as a TOML value, or as a string when it is not one.
pub fn parse_value(v: &str) -> Value {
    format!("v = {v}")
        .parse::<Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(v.to_string()))
}

/// Sets `value` at `segs` under `t`; returns how many places were set.
fn set_in(t: &mut Table, segs: &[Seg], value: &Value, key: &str) -> Result<usize, String> {
    let (s, rest) = segs.split_first().expect("a key has a segment");
    if rest.is_empty() {
        if s.sel.is_some() {
            return Err(format!(
                "--set {key}: the last part names a setting, not an element"
            ));
        }
        t.insert(s.name.to_string(), value.clone());
        return Ok(1);
    }
    let entry = t
        .entry(s.name.to_string())
        .or_insert_with(|| Value::Table(Table::new()));
    match entry {
        Value::Table(inner) => match s.sel {
            None => set_in(inner, rest, value, key),
            Some(_) => Err(format!(
                "--set {key}: {} is a table, not a list of them",
                s.name
            )),
        },
        Value::Array(items) => {
            let mut n = 0;
            let len = items.len();
            for (i, item) in items.iter_mut().enumerate() {
                let Value::Table(inner) = item else {
                    return Err(format!("--set {key}: {} is a list of values", s.name));
                };
                let chosen = match s.sel {
                    None => true,
                    Some(sel) => match sel.parse::<usize>() {
                        Ok(k) => k == i,
                        Err(_) => inner.get("name").and_then(Value::as_str) == Some(sel),
                    },
                };
                if chosen {
                    n += set_in(inner, rest, value, key)?;
                }
            }
            if n == 0 {
                return Err(match s.sel {
                    Some(sel) => format!(
                        "--set {key}: no {}[{sel}] (the file has {len}, named by `name` or numbered from 0)",
                        s.name
                    ),
                    None => format!("--set {key}: the file has no {}", s.name),
                });
            }
            Ok(n)
        }
        _ => Err(format!("--set {key}: {} is a value, not a table", s.name)),
    }
}

/// Applies `sets` (each `KEY=VALUE`) to the table in order.
pub fn apply(t: &mut Table, sets: &[String]) -> Result<(), String> {
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--set {s}: expected KEY=VALUE"))?;
        let segs = segments(k.trim())?;
        set_in(t, &segs, &parse_value(v.trim()), k.trim())?;
    }
    Ok(())
}

/// The topology of `text` with `sets` applied (the file's own errors keep their line and
/// column when there are no sets).
pub fn config(text: &str, sets: &[String]) -> Result<NetConfig, String> {
    if sets.is_empty() {
        return NetConfig::from_toml(text);
    }
    let mut t: Table = text.parse().map_err(|e| format!("topology: {e}"))?;
    apply(&mut t, sets)?;
    NetConfig::deserialize(Value::Table(t)).map_err(|e| {
        let e = e.to_string();
        let e: Vec<&str> = e.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        format!(
            "topology after --set {}: {}",
            sets.join(" --set "),
            e.join(" ")
        )
    })
}
