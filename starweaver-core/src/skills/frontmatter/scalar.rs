//! What a frontmatter scalar means: plain scalars typed like YAML 1.2 (a
//! `null`, a boolean spelled `true` or `false`, a number), except that
//! numbers with leading zeros or underscores stay text (`007`, `1_000`)
//! and a number too large for a float reads as `.inf`, as infinities and
//! NaN do; quoted and block scalars are text; core tags (`!!int`, `!!str`,
//! `!!binary`, ...) are honoured and a value that does not fit its tag is
//! an error. Other tags are ignored.

use granit_parser::{ScalarStyle, Tag};
use serde_json::{Number, Value};

/// The namespace of the YAML core tags (`!!int` is `tag:yaml.org,2002:int`).
const CORE_TAGS: &str = "tag:yaml.org,2002:";

/// Why a scalar cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ScalarError {
    /// `!!timestamp`: nothing here reads dates.
    Timestamp,
    /// A `!!binary` value that is not base64-encoded UTF-8 text.
    Binary,
    /// A value that does not fit its tag (`!!int two`).
    DoesNotFitTag,
}

/// The value of the scalar `text`, written in `style` with `tag`.
pub(super) fn resolve(
    text: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, ScalarError> {
    let core = tag.and_then(|tag| tag.suffix_in_namespace(CORE_TAGS));
    match core.as_deref() {
        Some("str") => Ok(Value::from(text)),
        Some("null") if is_null(text) => Ok(Value::Null),
        Some("bool") => boolean(text)
            .map(Value::from)
            .ok_or(ScalarError::DoesNotFitTag),
        Some("int") => integer(text).ok_or(ScalarError::DoesNotFitTag),
        Some("float") => integer(text)
            .and_then(|value| value.as_f64())
            .or_else(|| float(text))
            .map(float_value)
            .ok_or(ScalarError::DoesNotFitTag),
        Some("binary") => binary(text).map(Value::from).ok_or(ScalarError::Binary),
        Some("timestamp") => Err(ScalarError::Timestamp),
        Some("null" | "seq" | "map") => Err(ScalarError::DoesNotFitTag),
        _ if tag.is_some_and(|tag| tag.handle() == "!" && tag.suffix().is_empty()) => {
            Ok(Value::from(text))
        }
        _ if style == ScalarStyle::Plain => Ok(plain(text)),
        _ => Ok(Value::from(text)),
    }
}

/// A plain scalar's value.
fn plain(text: &str) -> Value {
    if is_null(text) {
        return Value::Null;
    }
    if let Some(value) = boolean(text) {
        return Value::from(value);
    }
    if text.contains('_') || leading_zero(text) {
        return Value::from(text);
    }
    if let Some(value) = integer(text) {
        return value;
    }
    float(text).map_or_else(|| Value::from(text), float_value)
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// `true` or `false`, in any case.
fn boolean(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// A decimal integer written with a leading zero (`007`, `-01`).
fn leading_zero(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A decimal, `0x` hexadecimal or `0o` octal integer.
fn integer(text: &str) -> Option<Value> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(octal) = digits.strip_prefix("0o") {
        (8, octal)
    } else {
        (10, digits)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        let value = i128::try_from(magnitude).ok().map(|value| -value)?;
        i64::try_from(value).ok().map(Value::from)
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

/// A YAML 1.2 float: `1.5`, `-.5`, `1e3`, `.inf`, `-.Inf`, `.nan`.
fn float(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    match unsigned {
        ".inf" | ".Inf" | ".INF" => {
            return Some(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            })
        }
        ".nan" | ".NaN" | ".NAN" if unsigned.len() == text.len() => return Some(f64::NAN),
        _ => {}
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok =
        (!whole.is_empty() || !fraction.is_empty()) && digits(whole) && digits(fraction);
    let exponent_ok = exponent.is_none_or(|exponent| {
        let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        !exponent.is_empty() && digits(exponent)
    });
    if !(mantissa_ok && exponent_ok) {
        return None;
    }
    text.parse().ok()
}

/// A float as JSON: a number when finite, else its YAML spelling as text.
fn float_value(value: f64) -> Value {
    if value.is_nan() {
        return Value::from(".nan");
    }
    if value.is_infinite() {
        return Value::from(if value < 0.0 { "-.inf" } else { ".inf" });
    }
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Standard base64 (whitespace allowed, padding optional) decoded as UTF-8 text.
fn binary(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let mut buffer = 0_u32;
    let mut bits = 0_u32;
    let mut ended = false;
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        if c == '=' {
            ended = true;
            continue;
        }
        if ended {
            return None;
        }
        let value = match c {
            'A'..='Z' => u32::from(c) - u32::from('A'),
            'a'..='z' => u32::from(c) - u32::from('a') + 26,
            '0'..='9' => u32::from(c) - u32::from('0') + 52,
            '+' => 62,
            '/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push(u8::try_from((buffer >> bits) & 0xFF).ok()?);
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_are_typed_like_yaml_1_2() {
        let plain = |text: &str| resolve(text, ScalarStyle::Plain, None).ok();
        assert_eq!(plain("~"), Some(Value::Null));
        assert_eq!(plain("True"), Some(Value::from(true)));
        assert_eq!(plain("yes"), Some(Value::from("yes")));
        assert_eq!(plain("-12"), Some(Value::from(-12)));
        assert_eq!(plain("0x1F"), Some(Value::from(31)));
        assert_eq!(plain("0o17"), Some(Value::from(15)));
        assert_eq!(plain("007"), Some(Value::from("007")));
        assert_eq!(plain("1_000"), Some(Value::from("1_000")));
        assert_eq!(plain("1.5"), Some(Value::from(1.5)));
        assert_eq!(plain("1e999"), Some(Value::from(".inf")));
        assert_eq!(plain("-.Inf"), Some(Value::from("-.inf")));
        assert_eq!(plain(".NaN"), Some(Value::from(".nan")));
        assert_eq!(plain("1.2.3"), Some(Value::from("1.2.3")));
        assert_eq!(
            resolve("5", ScalarStyle::SingleQuoted, None).ok(),
            Some(Value::from("5"))
        );
    }

    #[test]
    fn base64_reads_text_only() {
        assert_eq!(binary("aGVsbG8=").as_deref(), Some("hello"));
        assert_eq!(binary("aGVs\n bG8").as_deref(), Some("hello"));
        assert_eq!(binary("a*b"), None);
        assert_eq!(binary("/w=="), None);
    }
}
