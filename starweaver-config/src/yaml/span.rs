//! Source positions: every node and every error carries one, so a diagnostic can point at the
//! exact place in the manifest.

use std::fmt;

/// A point in the source: 1-based line and column (in characters) plus the 0-based byte offset.
///
/// Lines and columns are what a person reads in an editor; the byte offset lets tools slice the
/// original bytes without re-counting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Line number, starting at 1.
    pub line: usize,
    /// Column number in Unicode characters, starting at 1.
    pub column: usize,
    /// Byte offset from the start of the file, starting at 0.
    pub offset: usize,
}

impl Position {
    /// The first character of a file: where diagnostics about the whole file point.
    pub const START: Self = Self {
        line: 1,
        column: 1,
        offset: 0,
    };

    /// Builds a position from its parts, so tests and callers need not spell out the fields.
    #[must_use]
    pub const fn new(line: usize, column: usize, offset: usize) -> Self {
        Self {
            line,
            column,
            offset,
        }
    }

    /// Computes the position of byte `offset` in `bytes`, so checks made on raw bytes (size,
    /// UTF-8) can still report a line and column.
    ///
    /// Columns count UTF-8 characters (bytes that are not continuation bytes); invalid bytes
    /// count as one character each. `\n`, `\r\n` and a lone `\r` end a line, as in YAML.
    #[must_use]
    pub fn of_offset(bytes: &[u8], offset: usize) -> Self {
        let end = offset.min(bytes.len());
        let mut line = 1;
        let mut column = 1;
        let mut index = 0;
        while index < end {
            let byte = bytes[index];
            match byte {
                b'\n' => {
                    line += 1;
                    column = 1;
                }
                b'\r' => {
                    if bytes.get(index + 1) != Some(&b'\n') {
                        line += 1;
                        column = 1;
                    }
                }
                _ if byte & 0xC0 == 0x80 => {}
                _ => column += 1,
            }
            index += 1;
        }
        Self {
            line,
            column,
            offset: end,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A range of the source, from `start` (inclusive) to `end` (exclusive).
///
/// Nodes keep the whole range they cover so a diagnostic can underline it, not only mark its
/// first character.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First character of the range.
    pub start: Position,
    /// Just past the last character of the range.
    pub end: Position,
}

impl Span {
    /// Builds a span from its two ends.
    #[must_use]
    pub const fn new(start: Position, end: Position) -> Self {
        Self { start, end }
    }

    /// An empty span at one position, for things that have a place but no extent.
    #[must_use]
    pub const fn point(at: Position) -> Self {
        Self { start: at, end: at }
    }

    /// The span from this span's start to `other`'s end, used to cover a whole collection.
    #[must_use]
    pub fn to(self, other: Self) -> Self {
        Self {
            start: self.start,
            end: other.end.max(self.start),
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.start.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_positions_count_lines_and_characters() {
        let text = "ab\ncé\r\nx\ry".as_bytes();
        assert_eq!(Position::of_offset(text, 0), Position::new(1, 1, 0));
        assert_eq!(Position::of_offset(text, 2), Position::new(1, 3, 2));
        assert_eq!(Position::of_offset(text, 3), Position::new(2, 1, 3));
        // "é" is two bytes but one column.
        assert_eq!(Position::of_offset(text, 6), Position::new(2, 3, 6));
        // After "\r\n" a new line starts.
        assert_eq!(Position::of_offset(text, 8), Position::new(3, 1, 8));
        // A lone "\r" also ends a line.
        assert_eq!(Position::of_offset(text, 10), Position::new(4, 1, 10));
        // Offsets past the end clamp to the end.
        assert_eq!(Position::of_offset(text, 99).offset, text.len());
    }

    #[test]
    fn spans_join_and_display_their_start() {
        let a = Span::point(Position::new(1, 2, 1));
        let b = Span::new(Position::new(2, 1, 5), Position::new(2, 4, 8));
        assert_eq!(a.to(b), Span::new(a.start, b.end));
        assert_eq!(a.to(b).to_string(), "line 1, column 2");
    }
}
