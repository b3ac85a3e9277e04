//! Numbers as exact decimals, so two texts of one number compare equal
//! (`1.0`, `1`, `1e0`, `10E-1`) and two different numbers never do, however
//! many digits or however large an exponent they are written with.
//!
//! Why not floats, or an `i64` exponent: `9007199254740993` and
//! `9007199254740992` are one `f64`, and an exponent such as
//! `1e99999999999999999999` does not fit 64 bits, so `query` and `diff json`
//! called `1e99999999999999999999` and `10e99999999999999999998` different
//! (and `0e99999999999999999999` not zero). Here the exponent is kept as the
//! decimal text it is, and only a length (which fits a `usize`) is ever added
//! to it.

/// A number as (negative, significant digits, power of ten): the value is
/// `±0.digits × 10^(power + len)`, i.e. `digits × 10^power`. The digits have
/// no leading or trailing zeros; zero is `(false, "", 0)`. Equal numbers
/// give equal `Decimal`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    digits: String,
    power: Power,
}

/// An integer of any size: a sign and its digits with no leading zero
/// (zero is `(false, "")`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Power {
    negative: bool,
    magnitude: String,
}

impl Power {
    /// `text` (an optional sign, then ASCII digits) plus `add`.
    fn parse_plus(text: &str, add: i128) -> Option<Power> {
        let (negative, digits) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = digits.trim_start_matches('0');
        // Up to 30 digits the sum fits an i128 (its limit is about 1.7e38,
        // and `add` is a length: below 2^64).
        if digits.len() <= 30 {
            let value: i128 = if digits.is_empty() {
                0
            } else {
                digits.parse().ok()?
            };
            let value = if negative { -value } else { value };
            return Some(Power::from_i128(value.checked_add(add)?));
        }
        // Past 30 digits the exponent outweighs `add` (|add| < 10^20), so
        // the sign stays the exponent's and only the magnitude moves.
        let grows = negative == (add < 0);
        let mut magnitude = digits.as_bytes().to_vec();
        let mut amount = add.unsigned_abs();
        let mut carry = 0u8;
        for digit in magnitude.iter_mut().rev() {
            if amount == 0 && carry == 0 {
                break;
            }
            let step = (amount % 10) as u8 + carry;
            amount /= 10;
            let value = *digit - b'0';
            (*digit, carry) = if grows {
                let sum = value + step;
                (b'0' + sum % 10, sum / 10)
            } else if value >= step {
                (b'0' + value - step, 0)
            } else {
                (b'0' + value + 10 - step, 1)
            };
        }
        // A carry out of the top digit: at most one more digit.
        let mut text = String::with_capacity(magnitude.len() + 1);
        if grows && carry == 1 {
            text.push('1');
        }
        text.push_str(std::str::from_utf8(&magnitude).ok()?);
        Some(Power {
            negative,
            magnitude: text.trim_start_matches('0').to_owned(),
        })
    }

    fn from_i128(value: i128) -> Power {
        Power {
            negative: value < 0,
            magnitude: if value == 0 {
                String::new()
            } else {
                value.unsigned_abs().to_string()
            },
        }
    }
}

/// `text` as an exact decimal, or `None` when it is not a number (a sign,
/// digits with at most one `.`, an optional exponent).
pub(crate) fn decimal(text: &str) -> Option<Decimal> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let significant = digits.trim_end_matches('0');
    // Checked even for zero, so `0eX` is a number only when `X` is one.
    let add = i128::try_from(digits.len() - significant.len()).ok()?
        - i128::try_from(fraction.len()).ok()?;
    let power = Power::parse_plus(exponent, add)?;
    if significant.is_empty() {
        return Some(Decimal {
            negative: false,
            digits: String::new(),
            power: Power::from_i128(0),
        });
    }
    Some(Decimal {
        negative,
        digits: significant.to_owned(),
        power,
    })
}

#[cfg(test)]
mod tests {
    use super::decimal;

    fn same(a: &str, b: &str) -> bool {
        match (decimal(a), decimal(b)) {
            (Some(x), Some(y)) => x == y,
            _ => panic!("{a} or {b} is not a number"),
        }
    }

    #[test]
    fn texts_of_one_number_are_equal() {
        for (a, b) in [
            ("1", "1.0"),
            ("1", "1e0"),
            ("1", "10E-1"),
            ("-0", "0"),
            ("0.000", "0e5"),
            ("1e20", "100000000000000000000"),
            ("1e400", "10e399"),
            ("1e400", "1E+400"),
            ("1e-400", "0.1e-399"),
            ("12.5e-3", "0.0125"),
            // Exponents past i64 and i128, and their neighbours.
            ("1e99999999999999999999", "10e99999999999999999998"),
            ("1e99999999999999999999", "0.1e100000000000000000000"),
            (
                "1e-99999999999999999999999999999999999999999",
                "100e-100000000000000000000000000000000000000001",
            ),
            ("5e9223372036854775808", "50000e9223372036854775804"),
            ("0e99999999999999999999999999999999999999", "0"),
            ("-0e-99999999999999999999999999999999999999", "0.0"),
            (
                "1e100000000000000000000000000000000000000000",
                "0.001e100000000000000000000000000000000000000003",
            ),
        ] {
            assert!(same(a, b), "{a} = {b}");
        }
    }

    #[test]
    fn different_numbers_differ() {
        for (a, b) in [
            ("9007199254740993", "9007199254740992"),
            ("1e400", "1e401"),
            ("1e400", "-1e400"),
            ("1e-400", "1e400"),
            ("1e99999999999999999999", "1e99999999999999999998"),
            ("1e99999999999999999999", "1e-99999999999999999999"),
            ("2e99999999999999999999", "1e99999999999999999999"),
            (
                "1e100000000000000000000000000000000000000000",
                "1e99999999999999999999999999999999999999999",
            ),
            (
                "1e-100000000000000000000000000000000000000000",
                "10e-100000000000000000000000000000000000000000",
            ),
            ("1e20", "100000000000000000001"),
            ("1.0000000000000000000000001", "1"),
        ] {
            assert!(!same(a, b), "{a} != {b}");
        }
    }

    #[test]
    fn non_numbers_are_none() {
        for text in [
            "", "-", ".", "e5", "1e", "1e+", "1x", "1.2.3", "1e5.0", "--1",
        ] {
            assert!(decimal(text).is_none(), "{text}");
        }
    }
}
