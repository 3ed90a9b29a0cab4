//! YAML 1.2 core schema resolution of plain scalars: which unquoted text is a null, a boolean,
//! an integer or a float. Everything else, including YAML 1.1's `yes`/`no`/`on`/`off`, is a
//! string.

/// The type a plain scalar's text resolves to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    /// `null`, `Null`, `NULL`, `~` or empty.
    Null,
    /// `true`/`True`/`TRUE`, `false`/`False`/`FALSE`.
    Bool(bool),
    /// An integer in range.
    Int(i64),
    /// Integer syntax, but too large for `i64`.
    IntOutOfRange,
    /// A float (including infinities and NaN).
    Float(f64),
    /// Not one of the above.
    Str,
}

/// Resolves plain text by the core schema's rules, in its order (null, bool, int, float).
pub(crate) fn resolve_plain(text: &str) -> Resolved {
    if let Some(null) = resolve_null(text) {
        return null;
    }
    if let Some(value) = resolve_bool(text) {
        return Resolved::Bool(value);
    }
    if let Some(int) = resolve_int(text) {
        return int;
    }
    if let Some(value) = resolve_float(text) {
        return Resolved::Float(value);
    }
    Resolved::Str
}

fn resolve_null(text: &str) -> Option<Resolved> {
    matches!(text, "" | "~" | "null" | "Null" | "NULL").then_some(Resolved::Null)
}

/// Whether text is a core-schema boolean, and which.
pub(crate) fn resolve_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Whether text is core-schema integer syntax (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`).
pub(crate) fn resolve_int(text: &str) -> Option<Resolved> {
    let parsed = if let Some(octal) = text.strip_prefix("0o") {
        if octal.is_empty() || !octal.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        i64::from_str_radix(octal, 8)
    } else if let Some(hex) = text.strip_prefix("0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i64::from_str_radix(hex, 16)
    } else {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse::<i64>()
    };
    Some(parsed.map_or(Resolved::IntOutOfRange, Resolved::Int))
}

/// Whether text is core-schema float syntax, and its value.
///
/// Decimal floats match `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`; the special
/// values are `.inf`, `.nan` and their capitalized forms, with an optional sign on infinity.
pub(crate) fn resolve_float(text: &str) -> Option<f64> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    if !is_decimal_float(unsigned) {
        return None;
    }
    text.parse::<f64>().ok()
}

fn is_decimal_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        // `1.` and `.5` are floats; a lone `.` is not.
        Some(fraction) => {
            digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty())
        }
        None => !whole.is_empty() && digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|exponent| {
        let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        !exponent.is_empty() && digits(exponent)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_schema_nulls_and_booleans() {
        for text in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(resolve_plain(text), Resolved::Null, "{text:?}");
        }
        assert_eq!(resolve_plain("true"), Resolved::Bool(true));
        assert_eq!(resolve_plain("FALSE"), Resolved::Bool(false));
        for text in ["yes", "no", "on", "off", "y", "n", "nULL", "tRUE"] {
            assert_eq!(resolve_plain(text), Resolved::Str, "{text:?}");
        }
    }

    #[test]
    fn core_schema_integers() {
        assert_eq!(resolve_plain("0"), Resolved::Int(0));
        assert_eq!(resolve_plain("-17"), Resolved::Int(-17));
        assert_eq!(resolve_plain("+3"), Resolved::Int(3));
        assert_eq!(resolve_plain("0o17"), Resolved::Int(15));
        assert_eq!(resolve_plain("0xFf"), Resolved::Int(255));
        assert_eq!(resolve_plain("007"), Resolved::Int(7));
        assert_eq!(
            resolve_plain("9223372036854775808"),
            Resolved::IntOutOfRange
        );
        for text in ["0o", "0o8", "0x", "0xg", "-", "1_000", "0b1", "1 2"] {
            assert_eq!(resolve_plain(text), Resolved::Str, "{text:?}");
        }
    }

    #[test]
    fn core_schema_floats() {
        assert_eq!(resolve_plain("1.5"), Resolved::Float(1.5));
        assert_eq!(resolve_plain("-.5"), Resolved::Float(-0.5));
        assert_eq!(resolve_plain("1."), Resolved::Float(1.0));
        assert_eq!(resolve_plain("1e3"), Resolved::Float(1000.0));
        assert_eq!(resolve_plain("2.5E-1"), Resolved::Float(0.25));
        assert_eq!(resolve_plain(".inf"), Resolved::Float(f64::INFINITY));
        assert_eq!(resolve_plain("-.Inf"), Resolved::Float(f64::NEG_INFINITY));
        assert!(matches!(resolve_plain(".NaN"), Resolved::Float(v) if v.is_nan()));
        for text in [
            ".", "e3", "1e", "1.2.3", "inf", "nan", "-.nan", ".5e", "1e+",
        ] {
            assert_eq!(resolve_plain(text), Resolved::Str, "{text:?}");
        }
    }
}
