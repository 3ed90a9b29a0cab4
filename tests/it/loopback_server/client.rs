//! A raw HTTP/1.1 client over a std `TcpStream`, so the server's tests
//! see exactly what went over the wire: every chunk of a chunked body, and
//! whether the body ended cleanly.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::loopback::LoopbackServer;

/// Every read gives up after this long, so a server bug fails the test
/// instead of hanging it.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// One connection to a loopback server.
pub struct Client {
    stream: TcpStream,
    /// Bytes read past the last response.
    buffer: Vec<u8>,
}

/// One response as read off the wire.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// Each chunk of a chunked body, as the server framed it.
    pub chunks: Vec<Vec<u8>>,
    /// False when the connection closed before the body ended.
    pub complete: bool,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(existing, _)| existing == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

impl Client {
    pub fn connect(server: &LoopbackServer) -> Client {
        let stream = TcpStream::connect(server.address()).unwrap();
        stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        Client {
            stream,
            buffer: Vec::new(),
        }
    }

    /// Writes `bytes` as they are.
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
        self.stream.flush().unwrap();
    }

    /// Sends a POST of `body` to `path` with `headers` (plus host and
    /// content length).
    pub fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &str) {
        self.send(post(path, headers, body).as_bytes());
    }

    /// A POST of `body`, and its response.
    pub fn exchange(&mut self, path: &str, body: &str) -> Response {
        self.post(path, &[("content-type", "application/json")], body);
        self.response()
    }

    /// Reads one response; panics when the connection closes before the
    /// head ends.
    pub fn response(&mut self) -> Response {
        let (status, headers) = self.head();
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
            chunks: Vec::new(),
            complete: true,
        };
        if response.header("transfer-encoding") == Some("chunked") {
            self.chunked(&mut response);
        } else {
            let length: usize = response
                .header("content-length")
                .map_or(0, |length| length.parse().unwrap());
            response.complete = self.fill(length);
            let taken = length.min(self.buffer.len());
            response.body = self.buffer.drain(..taken).collect();
        }
        response
    }

    /// True when the server closed the connection (the next read finds
    /// the end of the stream, or a reset).
    pub fn closed(&mut self) -> bool {
        let mut byte = [0_u8; 1];
        match self.stream.read(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(error) => error.kind() == ErrorKind::ConnectionReset,
        }
    }

    /// True when nothing arrives within `wait` (the connection is open
    /// and silent).
    pub fn silent_for(&mut self, wait: Duration) -> bool {
        self.stream.set_read_timeout(Some(wait)).unwrap();
        let mut byte = [0_u8; 1];
        let silent = matches!(
            self.stream.read(&mut byte),
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
        );
        self.stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        silent
    }

    fn head(&mut self) -> (u16, Vec<(String, String)>) {
        loop {
            let mut slots = [httparse::EMPTY_HEADER; 64];
            let mut parsed = httparse::Response::new(&mut slots);
            if let httparse::Status::Complete(length) = parsed.parse(&self.buffer).unwrap() {
                let status = parsed.code.unwrap();
                let headers = parsed
                    .headers
                    .iter()
                    .map(|header| {
                        (
                            header.name.to_ascii_lowercase(),
                            String::from_utf8(header.value.to_vec()).unwrap(),
                        )
                    })
                    .collect();
                self.buffer.drain(..length);
                return (status, headers);
            }
            assert!(
                self.read_more(),
                "the connection closed before the head ended"
            );
        }
    }

    fn chunked(&mut self, response: &mut Response) {
        loop {
            let Some(line) = self.line() else {
                response.complete = false;
                return;
            };
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            if size == 0 {
                response.complete = self.line().is_some();
                return;
            }
            if !self.fill(size + 2) {
                response.body.append(&mut self.buffer);
                response.complete = false;
                return;
            }
            let chunk: Vec<u8> = self.buffer.drain(..size).collect();
            assert_eq!(self.buffer.drain(..2).collect::<Vec<u8>>(), b"\r\n");
            response.body.extend_from_slice(&chunk);
            response.chunks.push(chunk);
        }
    }

    /// The next CRLF-terminated line, without the CRLF; none at the end
    /// of the stream.
    fn line(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|pair| pair == b"\r\n") {
                let line: Vec<u8> = self.buffer.drain(..end + 2).take(end).collect();
                return Some(String::from_utf8(line).unwrap());
            }
            if !self.read_more() {
                return None;
            }
        }
    }

    /// Reads until `length` bytes are buffered; false at the end of the
    /// stream first.
    fn fill(&mut self, length: usize) -> bool {
        while self.buffer.len() < length {
            if !self.read_more() {
                return false;
            }
        }
        true
    }

    fn read_more(&mut self) -> bool {
        let mut chunk = [0_u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => false,
            Ok(read) => {
                self.buffer.extend_from_slice(&chunk[..read]);
                true
            }
            Err(error) if error.kind() == ErrorKind::ConnectionReset => false,
            Err(error) => panic!("reading from the loopback server: {error}"),
        }
    }
}

/// The text of a POST of `body` to `path` with `headers`.
pub fn post(path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut request = format!("POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    request
}
