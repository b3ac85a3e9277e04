//! Bare Python tokens as JSON: numbers in every spelling, the literals,
//! names; and string prefixes.

use crate::call::format::value::escape_into;

/// The JSON of a bare Python token: a number, `True`/`False`/`None` (and
/// their JSON spellings), or a name, kept as a string.
pub(super) fn token_json(token: &[u8]) -> String {
    match token {
        b"True" | b"true" => return "true".to_owned(),
        b"False" | b"false" => return "false".to_owned(),
        b"None" | b"null" => return "null".to_owned(),
        _ => {}
    }
    let text = String::from_utf8_lossy(token);
    let clean = text.replace('_', "");
    if let Some(number) = python_number(&clean) {
        return number;
    }
    let mut json = vec![b'"'];
    escape_into(token, &mut json);
    json.push(b'"');
    String::from_utf8_lossy(&json).into_owned()
}

/// A Python number literal as JSON text.
fn python_number(text: &str) -> Option<String> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (true, body),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let sign = if negative { "-" } else { "" };
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        let lower = body.to_ascii_lowercase();
        if let Some(digits) = lower.strip_prefix(prefix) {
            let value = u128::from_str_radix(digits, radix).ok()?;
            return Some(format!("{sign}{value}"));
        }
    }
    if !body
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.')
    {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        let digits = body.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        return Some(format!("{sign}{digits}"));
    }
    let value: f64 = body.parse().ok()?;
    if !value.is_finite() {
        // `1e999` is infinity, which JSON cannot write.
        return Some("null".to_owned());
    }
    let number = serde_json::Number::from_f64(if negative { -value } else { value })?;
    Some(number.to_string())
}

pub(super) fn char_bytes(code: u32) -> Vec<u8> {
    char::from_u32(code)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
        .to_string()
        .into_bytes()
}

/// Whether `token` is a string prefix (`r`, `b`, `rb`, `f`, `u`…).
pub(super) fn is_string_prefix(token: &[u8]) -> bool {
    token.len() <= 2
        && token
            .iter()
            .all(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f'))
}
