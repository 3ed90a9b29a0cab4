//! One accepted connection: read a request, take the next reply, write
//! it, and go on while the connection stays alive.

use std::sync::Arc;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{sleep, timeout};

use super::reply::Reply;
use super::request::{read_request, Refusal, IO_TIMEOUT};
use super::server::Shared;

/// A `Hang` reply lets go of its connection after this long at most, so
/// a leaked server cannot hold a socket for the whole test run.
const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// How long a refused connection is drained before it is closed.
const LINGER: std::time::Duration = std::time::Duration::from_secs(2);

/// Serves requests on `stream` in order until either side closes it.
pub(super) async fn serve(mut stream: TcpStream, shared: Arc<Shared>) {
    // Each scripted write should leave as its own segment.
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::new();
    loop {
        let incoming = match read_request(&mut stream, &mut buffer).await {
            Ok(Some(incoming)) => incoming,
            Ok(None) => break,
            Err(refusal) => {
                let _ = refuse(&mut stream, &refusal).await;
                linger(&mut stream).await;
                return;
            }
        };
        let keep_alive = incoming.keep_alive;
        let reply = shared.take(incoming.recorded);
        match answer(&mut stream, reply, keep_alive, &shared).await {
            Ok(true) => continue,
            Ok(false) | Err(_) => break,
        }
    }
    let _ = timeout(IO_TIMEOUT, stream.shutdown()).await;
}

/// Writes `reply`; true when the connection may serve another request.
async fn answer(
    stream: &mut TcpStream,
    reply: Reply,
    keep_alive: bool,
    shared: &Shared,
) -> std::io::Result<bool> {
    match reply {
        Reply::Json {
            status,
            headers,
            body,
        } => {
            let body = serde_json::to_vec(&body)?;
            whole(stream, status, &headers, &body, keep_alive).await
        }
        Reply::Text {
            status,
            headers,
            body,
        } => whole(stream, status, &headers, body.as_bytes(), keep_alive).await,
        Reply::Sse {
            status,
            headers,
            events,
            split,
            pause,
        } => {
            let keep_alive = keep_alive && !asks_to_close(&headers);
            let mut head = head(status, &headers, keep_alive);
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            write(stream, head.as_bytes()).await?;
            let body = events.concat();
            for piece in split.pieces(&events, body.as_bytes()) {
                write(stream, &chunk(piece)).await?;
                if !pause.is_zero() {
                    sleep(pause).await;
                }
            }
            write(stream, b"0\r\n\r\n").await?;
            Ok(keep_alive)
        }
        Reply::DropAfter { bytes } => {
            let headers = [("content-type".to_string(), "text/event-stream".to_string())];
            let mut head = head(200, &headers, true);
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            write(stream, head.as_bytes()).await?;
            // An empty chunk would end the body cleanly: write none.
            if !bytes.is_empty() {
                write(stream, &chunk(bytes.as_bytes())).await?;
            }
            Ok(false)
        }
        Reply::Raw { bytes } => {
            write(stream, &bytes).await?;
            Ok(false)
        }
        Reply::Hang => {
            hang(stream, shared).await;
            Ok(false)
        }
    }
}

/// A complete `Content-Length` response.
async fn whole(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    keep_alive: bool,
) -> std::io::Result<bool> {
    let keep_alive = keep_alive && !asks_to_close(headers);
    let mut message = head(status, headers, keep_alive);
    message.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut bytes = message.into_bytes();
    bytes.extend_from_slice(body);
    write(stream, &bytes).await?;
    Ok(keep_alive)
}

/// The status line and headers, without the framing header or the blank
/// line; framing headers in `headers` are left out (the server frames).
fn head(status: u16, headers: &[(String, String)], keep_alive: bool) -> String {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        let framing = name.eq_ignore_ascii_case("content-length")
            || name.eq_ignore_ascii_case("transfer-encoding");
        if !framing {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if !keep_alive && !asks_to_close(headers) {
        head.push_str("connection: close\r\n");
    }
    head
}

/// Whether the scripted headers close the connection after the reply.
fn asks_to_close(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("connection") && value.trim().eq_ignore_ascii_case("close")
    })
}

/// `piece` as one chunk of a chunked body.
fn chunk(piece: &[u8]) -> Vec<u8> {
    let mut bytes = format!("{:x}\r\n", piece.len()).into_bytes();
    bytes.extend_from_slice(piece);
    bytes.extend_from_slice(b"\r\n");
    bytes
}

/// Writes and flushes `bytes`, within [`IO_TIMEOUT`].
async fn write(stream: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    let written = timeout(IO_TIMEOUT, async {
        stream.write_all(bytes).await?;
        stream.flush().await
    })
    .await;
    written.unwrap_or_else(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the client stopped reading",
        ))
    })
}

/// Answers a request the server will not serve, naming the problem.
async fn refuse(stream: &mut TcpStream, refusal: &Refusal) -> std::io::Result<bool> {
    let body = json!({"error": {
        "message": format!("loopback server: {}", refusal.message),
        "type": "loopback_refused",
    }});
    let headers = [("content-type".to_string(), "application/json".to_string())];
    whole(
        stream,
        refusal.status,
        &headers,
        body.to_string().as_bytes(),
        false,
    )
    .await
}

/// After refusing a request whose rest is still arriving: ends our side,
/// then reads and discards for a moment, so closing does not reset the
/// connection before the client has read the refusal.
async fn linger(stream: &mut TcpStream) {
    let _ = timeout(IO_TIMEOUT, stream.shutdown()).await;
    let mut scratch = vec![0_u8; 16 * 1024];
    let _ = timeout(LINGER, async {
        while let Ok(read) = stream.read(&mut scratch).await {
            if read == 0 {
                break;
            }
        }
    })
    .await;
}

/// Holds the connection without answering until the client hangs up
/// (counted in `shared`) or [`HANG_LIMIT`] passes.
async fn hang(stream: &mut TcpStream, shared: &Shared) {
    let mut scratch = vec![0_u8; 4096];
    let hung_up = timeout(HANG_LIMIT, async {
        loop {
            match stream.read(&mut scratch).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    if hung_up.is_ok() {
        shared.hung_up();
    }
}

/// The reason phrase for `status` (clients ignore it; it reads well in a
/// capture).
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}
