//! Plain YAML scalars resolved as the YAML 1.2 core schema resolves them,
//! kept apart from the event writer because the rules (which spellings are
//! null or booleans, when digits are a number and when a string) are a
//! table of their own that the writer only asks.

/// What a plain scalar is.
#[derive(Debug, PartialEq)]
pub(super) enum Plain {
    Null,
    Bool(bool),
    /// Its JSON text, digits as written.
    Number(String),
    NonFinite,
    /// A hexadecimal or octal integer past 128 bits.
    TooBig,
    String,
}

pub(super) fn resolve(value: &str) -> Plain {
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return Plain::Null,
        "true" | "True" | "TRUE" => return Plain::Bool(true),
        "false" | "False" | "FALSE" => return Plain::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Plain::NonFinite,
        _ => {}
    }
    let (negative, body) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    for (prefix, radix) in [("0x", 16), ("0o", 8)] {
        if let Some(digits) = body.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return Plain::String;
            }
            return match u128::from_str_radix(digits, radix) {
                Ok(n) => Plain::Number(format!("{}{n}", if negative { "-" } else { "" })),
                Err(_) => Plain::TooBig,
            };
        }
    }
    decimal(negative, body).map_or(Plain::String, Plain::Number)
}

/// `[0-9]+`, `[0-9]+.[0-9]*`, `.[0-9]+`, each with an optional exponent,
/// as JSON number text. A run of digits with a leading zero (`0755`) is a
/// string, as in YAML 1.2 and serde_yaml.
fn decimal(negative: bool, body: &str) -> Option<String> {
    let bytes = body.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let int = digits(0);
    let mut at = int;
    let mut frac = None;
    if bytes.get(at) == Some(&b'.') {
        let n = digits(at + 1);
        frac = Some(&body[at + 1..at + 1 + n]);
        at += 1 + n;
    }
    if int == 0 && frac.is_none_or(str::is_empty) {
        return None;
    }
    let mut exponent = "";
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
        let n = digits(at + 1 + sign);
        if n == 0 {
            return None;
        }
        exponent = &body[at..at + 1 + sign + n];
        at += 1 + sign + n;
    }
    if at != bytes.len() {
        return None;
    }
    let int_text = &body[..int];
    if frac.is_none() && exponent.is_empty() && int > 1 && int_text.starts_with('0') {
        return None;
    }
    let mut out = String::with_capacity(body.len() + 2);
    if negative {
        out.push('-');
    }
    let trimmed = int_text.trim_start_matches('0');
    out.push_str(if trimmed.is_empty() { "0" } else { trimmed });
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(if frac.is_empty() { "0" } else { frac });
    }
    out.push_str(exponent);
    Some(out)
}
