//! Reading one HTTP/1.1 request off a connection, within bounds, and the
//! [`Recorded`] copy of it a test inspects.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// A request head (request line and headers) larger than this is refused
/// with 431.
pub const MAX_HEAD: usize = 64 * 1024;
/// A request body larger than this is refused with 413, unread.
pub const MAX_BODY: usize = 16 * 1024 * 1024;
/// Headers beyond this many make the head unreadable (400).
const MAX_HEADERS: usize = 100;
/// Every read and write on a socket gives up after this long, so a
/// stalled client cannot hold a test forever; an idle keep-alive
/// connection is closed after it.
pub(super) const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// A request as the server read it, for tests to assert on.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The method, as sent (`POST`).
    pub method: String,
    /// The request target, query included (`/v1/messages`).
    pub path: String,
    /// Headers in order, names lower-cased, values as sent (lossy UTF-8).
    pub headers: Vec<(String, String)>,
    /// The body bytes (`Content-Length` framed).
    pub body: Vec<u8>,
    /// The body parsed as JSON, when it is JSON.
    pub json: Option<Value>,
}

impl Recorded {
    /// The value of the first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(existing, _)| existing.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON body; panics (naming the request) when the body is not
    /// JSON, since a test that asks expects it to be.
    pub fn json_body(&self) -> &Value {
        self.json.as_ref().unwrap_or_else(|| {
            panic!(
                "{} {} has no JSON body: {:?}",
                self.method,
                self.path,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A request read whole, and whether its connection may serve another.
pub(super) struct Incoming {
    /// What the test sees.
    pub recorded: Recorded,
    /// False when the client asked to close (or spoke HTTP/1.0 without
    /// asking to keep the connection).
    pub keep_alive: bool,
}

/// A request the server will not serve: answered with `status` and a JSON
/// error naming the problem, then the connection is closed.
pub(super) struct Refusal {
    /// The HTTP status of the answer.
    pub status: u16,
    /// What was wrong, for the test's failure message.
    pub message: String,
}

impl Refusal {
    fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }
}

/// What a read ended with when it brought no bytes.
enum Stall {
    /// The peer closed its side.
    Closed,
    /// Nothing arrived within [`IO_TIMEOUT`].
    TimedOut,
    /// The socket failed.
    Failed(std::io::Error),
}

/// Reads the next request from `stream`; `buffer` carries bytes already
/// read past the previous request (a pipelining client). `Ok(None)` when
/// the connection ended (or idled out) between requests.
pub(super) async fn read_request(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
) -> Result<Option<Incoming>, Refusal> {
    let head = loop {
        if let Some(head) = parse_head(buffer)? {
            break head;
        }
        if buffer.len() >= MAX_HEAD {
            return Err(Refusal::new(
                431,
                format!("the request head is over {MAX_HEAD} bytes"),
            ));
        }
        match read_more(stream, buffer).await {
            Ok(()) => {}
            Err(Stall::Closed | Stall::TimedOut) if buffer.is_empty() => return Ok(None),
            Err(stall) => return Err(stalled(stall, "head")),
        }
    };
    let length = content_length(&head.headers)?;
    if head
        .headers
        .iter()
        .any(|(name, value)| name == "expect" && value.eq_ignore_ascii_case("100-continue"))
    {
        let sent = timeout(
            IO_TIMEOUT,
            stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n"),
        )
        .await;
        if !matches!(sent, Ok(Ok(()))) {
            return Err(Refusal::new(400, "could not send 100 Continue"));
        }
    }
    let end = head.length + length;
    while buffer.len() < end {
        if let Err(stall) = read_more(stream, buffer).await {
            return Err(stalled(stall, "body"));
        }
    }
    let body: Vec<u8> = buffer[head.length..end].to_vec();
    buffer.drain(..end);
    let json = if body.is_empty() {
        None
    } else {
        serde_json::from_slice(&body).ok()
    };
    let keep_alive = keeps_alive(head.minor_version, &head.headers);
    Ok(Some(Incoming {
        recorded: Recorded {
            method: head.method,
            path: head.path,
            headers: head.headers,
            body,
            json,
        },
        keep_alive,
    }))
}

/// A parsed request head.
struct Head {
    /// Bytes the head took in the buffer.
    length: usize,
    method: String,
    path: String,
    /// HTTP/1.x minor version.
    minor_version: u8,
    headers: Vec<(String, String)>,
}

/// The head at the start of `buffer`, if all of it has arrived.
fn parse_head(buffer: &[u8]) -> Result<Option<Head>, Refusal> {
    if buffer.is_empty() {
        return Ok(None);
    }
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut slots);
    let length = match request.parse(buffer) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(error) => {
            return Err(Refusal::new(
                400,
                format!("the request head is not HTTP/1.1: {error}"),
            ))
        }
    };
    if length > MAX_HEAD {
        return Err(Refusal::new(
            431,
            format!("the request head is over {MAX_HEAD} bytes"),
        ));
    }
    Ok(Some(Head {
        length,
        method: request.method.unwrap_or_default().to_string(),
        path: request.path.unwrap_or_default().to_string(),
        minor_version: request.version.unwrap_or(1),
        headers: request
            .headers
            .iter()
            .map(|header| {
                (
                    header.name.to_ascii_lowercase(),
                    String::from_utf8_lossy(header.value).into_owned(),
                )
            })
            .collect(),
    }))
}

/// The body length the head declares (0 when it declares none).
fn content_length(headers: &[(String, String)]) -> Result<usize, Refusal> {
    if headers.iter().any(|(name, _)| name == "transfer-encoding") {
        return Err(Refusal::new(
            501,
            "the loopback server reads Content-Length bodies only, not Transfer-Encoding",
        ));
    }
    let mut lengths = headers
        .iter()
        .filter(|(name, _)| name == "content-length")
        .map(|(_, value)| value.trim().parse::<usize>());
    let length = match (lengths.next(), lengths.next()) {
        (None, _) => 0,
        (Some(Ok(length)), None) => length,
        _ => {
            return Err(Refusal::new(
                400,
                "the request has an unreadable or repeated Content-Length",
            ))
        }
    };
    if length > MAX_BODY {
        return Err(Refusal::new(
            413,
            format!("the request body of {length} bytes is over {MAX_BODY}"),
        ));
    }
    Ok(length)
}

/// Whether the connection may carry another request after this one.
fn keeps_alive(minor_version: u8, headers: &[(String, String)]) -> bool {
    let asked = |token: &str| {
        headers
            .iter()
            .filter(|(name, _)| name == "connection")
            .flat_map(|(_, value)| value.split(','))
            .any(|item| item.trim().eq_ignore_ascii_case(token))
    };
    if minor_version == 0 {
        asked("keep-alive")
    } else {
        !asked("close")
    }
}

/// Appends what the next read brings to `buffer`.
async fn read_more(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<(), Stall> {
    let mut chunk = vec![0_u8; 16 * 1024];
    match timeout(IO_TIMEOUT, stream.read(&mut chunk)).await {
        Err(_) => Err(Stall::TimedOut),
        Ok(Err(error)) => Err(Stall::Failed(error)),
        Ok(Ok(0)) => Err(Stall::Closed),
        Ok(Ok(read)) => {
            buffer.extend_from_slice(&chunk[..read]);
            Ok(())
        }
    }
}

/// The refusal for a read that stalled inside the request's `part`.
fn stalled(stall: Stall, part: &str) -> Refusal {
    match stall {
        Stall::Closed => Refusal::new(400, format!("the client closed the connection mid-{part}")),
        Stall::TimedOut => Refusal::new(408, format!("the request {part} stalled")),
        Stall::Failed(error) => Refusal::new(400, format!("reading the request {part}: {error}")),
    }
}
