//! The scripted loopback server the provider tests talk to, checked with a
//! raw socket client: the script is served in order, requests are
//! recorded, connections stay alive, streams are cut where asked, and
//! dropped, hung and oversized exchanges behave. `fixtures` checks the
//! provider response fixtures.

mod client;
mod fixtures;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::loopback::{
    awkward_cuts, utf8_cut, LoopbackServer, Recorded, Reply, Split, MAX_BODY, MAX_HEAD,
};
use client::{post, Client};

/// How long a test waits for something that should happen promptly
/// before it fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(30);

#[test]
fn the_script_is_served_in_order_then_a_500_names_the_request_past_it() {
    let server = LoopbackServer::start(vec![
        Reply::json(200, json!({"n": 1})),
        Reply::text(201, "second"),
    ]);
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    assert_eq!(server.unserved(), 2);

    let first = Client::connect(&server).exchange("/one", "{}");
    let second = Client::connect(&server).exchange("/two", "{}");
    let third = Client::connect(&server).exchange("/three", "{}");

    assert_eq!((first.status, first.json()), (200, json!({"n": 1})));
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!((second.status, second.text().as_str()), (201, "second"));
    assert_eq!(third.status, 500);
    let message = third.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("request 3"), "{message}");
    assert!(message.contains("2 replies"), "{message}");
    assert_eq!(server.unserved(), 0);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/one", "/two", "/three"]);
    assert_eq!(server.connections(), 3);
}

#[test]
fn requests_are_recorded_with_lower_cased_headers_and_parsed_json() {
    let server = LoopbackServer::start(vec![Reply::json(200, json!({})); 2]);
    let mut client = Client::connect(&server);
    client.post(
        "/v1/chat/completions?x=1",
        &[
            ("Authorization", "Bearer sk-test"),
            ("Content-Type", "application/json"),
        ],
        r#"{"model":"m","stream":true}"#,
    );
    assert_eq!(client.response().status, 200);
    client.post("/plain", &[], "not json");
    assert_eq!(client.response().status, 200);

    let requests = server.wait_for_requests(2);
    let first: &Recorded = &requests[0];
    assert_eq!(first.method, "POST");
    assert_eq!(first.path, "/v1/chat/completions?x=1");
    assert_eq!(first.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(first.header("AUTHORIZATION"), Some("Bearer sk-test"));
    assert!(first.headers.iter().any(|(name, _)| name == "content-type"));
    assert_eq!(first.body, br#"{"model":"m","stream":true}"#);
    assert_eq!(first.json_body(), &json!({"model": "m", "stream": true}));
    assert_eq!(requests[1].body, b"not json");
    assert_eq!(requests[1].json, None);
}

#[test]
fn a_client_expecting_100_continue_gets_it_before_sending_the_body() {
    let server = LoopbackServer::start(vec![Reply::json(200, json!({"ok": true}))]);
    let mut client = Client::connect(&server);
    client.send(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-length: 2\r\n\r\n");
    assert_eq!(client.response().status, 100);
    client.send(b"{}");
    assert_eq!(client.response().json(), json!({"ok": true}));
    assert_eq!(server.requests()[0].json, Some(json!({})));
}

#[test]
fn one_connection_serves_several_requests_in_order_even_pipelined() {
    let server = LoopbackServer::start(vec![
        Reply::json(200, json!({"n": 1})),
        Reply::sse(vec!["data: {}\n\n".to_string()]),
        Reply::text(200, "three"),
        Reply::json(200, json!({"n": 4})),
    ]);
    let mut client = Client::connect(&server);
    assert_eq!(client.exchange("/1", "{}").json(), json!({"n": 1}));
    let stream = client.exchange("/2", "{}");
    assert!(stream.complete);
    assert_eq!(stream.text(), "data: {}\n\n");
    // Two requests in one write: answered in order on the same socket.
    let both = format!("{}{}", post("/3", &[], "a"), post("/4", &[], "b"));
    client.send(both.as_bytes());
    assert_eq!(client.response().text(), "three");
    assert_eq!(client.response().json(), json!({"n": 4}));

    assert_eq!(server.connections(), 1);
    let bodies: Vec<Vec<u8>> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(
        bodies,
        [b"{}".to_vec(), b"{}".to_vec(), b"a".to_vec(), b"b".to_vec()]
    );
}

#[test]
fn connection_close_is_honoured_from_the_client_and_from_the_script() {
    let server = LoopbackServer::start(vec![
        Reply::json(200, json!({})),
        Reply::json(200, json!({})).with_header("Connection", "close"),
    ]);
    let mut asked = Client::connect(&server);
    asked.post("/", &[("connection", "close")], "{}");
    let response = asked.response();
    assert_eq!(response.header("connection"), Some("close"));
    assert!(
        asked.closed(),
        "the server keeps a connection the client closed"
    );

    let mut scripted = Client::connect(&server);
    let response = scripted.exchange("/", "{}");
    assert_eq!(response.header("connection"), Some("close"));
    assert!(
        scripted.closed(),
        "the server keeps a connection its reply closed"
    );
}

#[test]
fn http_1_0_without_keep_alive_is_closed_after_one_answer() {
    let server = LoopbackServer::start(vec![Reply::text(200, "once")]);
    let mut client = Client::connect(&server);
    client.send(b"GET /old HTTP/1.0\r\n\r\n");
    assert_eq!(client.response().text(), "once");
    assert!(client.closed());
}

#[test]
fn scripted_headers_status_and_text_bodies_are_sent_as_given() {
    let server = LoopbackServer::start(vec![
        Reply::text(200, "{\"cut\": ")
            .with_header("content-type", "application/json")
            .with_header("retry-after", "7")
            .with_status(429),
        Reply::Raw {
            bytes: b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 3\r\n\r\nbad".to_vec(),
        },
    ]);
    let mut client = Client::connect(&server);
    let response = client.exchange("/", "{}");
    assert_eq!(response.status, 429);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("retry-after"), Some("7"));
    let content_types = response
        .headers
        .iter()
        .filter(|(name, _)| name == "content-type")
        .count();
    assert_eq!(content_types, 1, "with_header replaces, it does not add");
    assert_eq!(response.text(), "{\"cut\": ");

    let raw = client.exchange("/", "{}");
    assert_eq!((raw.status, raw.text().as_str()), (502, "bad"));
    assert!(client.closed());
}

fn events() -> Vec<String> {
    vec![
        "data: {\"a\":\"caf\u{e9}\"}\n\n".to_string(),
        "event: x\ndata: {\"b\":2}\n\n".to_string(),
        "data: [DONE]\n\n".to_string(),
    ]
}

/// The chunks one SSE reply cut by `split` arrives in.
fn chunks_of(split: Split) -> (Vec<Vec<u8>>, String) {
    let server = LoopbackServer::start(vec![Reply::sse(events())
        .with_split(split)
        .with_pause(Duration::from_millis(1))]);
    let response = Client::connect(&server).exchange("/stream", "{}");
    assert!(response.complete);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    (response.chunks.clone(), response.text())
}

#[test]
fn an_sse_reply_is_one_write_per_event_by_default() {
    let (chunks, text) = chunks_of(Split::Events);
    let expected: Vec<Vec<u8>> = events().into_iter().map(String::into_bytes).collect();
    assert_eq!(chunks, expected);
    assert_eq!(text, events().concat());
    let (whole, _) = chunks_of(Split::Whole);
    assert_eq!(whole, [events().concat().into_bytes()]);
}

#[test]
fn an_sse_reply_can_arrive_one_byte_per_write() {
    let (chunks, text) = chunks_of(Split::Every(1));
    assert_eq!(chunks.len(), events().concat().len());
    assert!(chunks.iter().all(|chunk| chunk.len() == 1));
    assert_eq!(text, events().concat());
    let (sevens, _) = chunks_of(Split::Every(7));
    assert!(sevens.iter().all(|chunk| chunk.len() <= 7));
}

#[test]
fn an_sse_reply_can_be_cut_inside_a_utf8_character() {
    let body = events().concat();
    let cut = utf8_cut(&body).unwrap();
    assert!(!body.is_char_boundary(cut));
    assert_eq!(&body.as_bytes()[cut - 1..=cut], "\u{e9}".as_bytes());
    // Out-of-range and repeated cuts are ignored.
    let (chunks, text) = chunks_of(Split::At(vec![cut, cut, 0, body.len() + 9]));
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[0], &body.as_bytes()[..cut]);
    assert!(
        std::str::from_utf8(&chunks[0]).is_err(),
        "the first write ends mid-character"
    );
    assert_eq!(text, body);
    assert_eq!(utf8_cut("plain ascii"), None);
}

#[test]
fn awkward_cuts_land_inside_field_names_lines_terminators_and_characters() {
    let body = events().concat();
    let cuts = awkward_cuts(&body);
    assert!(
        cuts.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted, distinct"
    );
    assert!(cuts.iter().all(|cut| *cut > 0 && *cut < body.len()));
    // Inside `data:` of the first line, between the two newlines that end
    // the first event, and inside the `é`.
    assert!(cuts.contains(&2));
    let end_of_first = events()[0].len();
    assert!(cuts.contains(&(end_of_first - 1)));
    assert!(cuts.contains(&utf8_cut(&body).unwrap()));
    let (chunks, text) = chunks_of(Split::At(cuts.clone()));
    assert_eq!(chunks.len(), cuts.len() + 1);
    assert_eq!(text, body);
}

#[test]
fn drop_after_closes_the_connection_mid_stream() {
    let server = LoopbackServer::start(vec![Reply::DropAfter {
        bytes: "data: {\"partial\":".to_string(),
    }]);
    let mut client = Client::connect(&server);
    let response = client.exchange("/stream", "{}");
    assert_eq!(response.status, 200);
    assert_eq!(response.header("transfer-encoding"), Some("chunked"));
    assert!(!response.complete, "the body must not end cleanly");
    assert_eq!(response.text(), "data: {\"partial\":");
    assert!(client.closed());
}

#[test]
fn an_empty_raw_reply_closes_before_any_answer() {
    let server = LoopbackServer::start(vec![Reply::Raw { bytes: Vec::new() }]);
    let mut client = Client::connect(&server);
    client.post("/", &[], "{}");
    assert!(client.closed());
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_hang_never_answers_and_counts_the_client_hanging_up() {
    let server = LoopbackServer::start(vec![Reply::Hang]);
    let mut client = Client::connect(&server);
    client.post("/slow", &[], "{}");
    assert_eq!(server.wait_for_requests(1).len(), 1);
    assert!(client.silent_for(Duration::from_millis(200)));
    assert_eq!(server.hangups(), 0);
    drop(client);
    let deadline = Instant::now() + PATIENCE;
    while server.hangups() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(server.hangups(), 1);
}

#[test]
fn dropping_the_server_ends_its_hung_connections() {
    let server = LoopbackServer::start(vec![Reply::Hang]);
    let mut client = Client::connect(&server);
    client.post("/slow", &[], "{}");
    server.wait_for_requests(1);
    let (done, dropped) = mpsc::channel();
    std::thread::spawn(move || {
        drop(server);
        let _ = done.send(());
    });
    dropped
        .recv_timeout(PATIENCE)
        .expect("dropping the server returns while a request hangs");
    assert!(
        client.closed(),
        "the hung connection is closed with the server"
    );
}

#[tokio::test]
async fn async_tests_can_wait_for_a_request_without_blocking_their_runtime() {
    let server = LoopbackServer::start(vec![Reply::Hang]);
    let address = server.address();
    let sender = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        std::io::Write::write_all(&mut stream, post("/async", &[], "{}").as_bytes()).unwrap();
        stream
    });
    let requests = server.requests_arrived(1).await;
    assert_eq!(requests[0].path, "/async");
    drop(sender.await.unwrap());
}

#[test]
fn oversized_and_chunked_requests_are_refused_not_served() {
    let server = LoopbackServer::start(vec![Reply::json(200, json!({}))]);

    let mut big_body = Client::connect(&server);
    big_body.send(
        format!(
            "POST / HTTP/1.1\r\ncontent-length: {}\r\n\r\n",
            MAX_BODY + 1
        )
        .as_bytes(),
    );
    let response = big_body.response();
    assert_eq!(response.status, 413);
    assert!(response.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("over"));
    assert!(big_body.closed());

    let mut big_head = Client::connect(&server);
    let filler = "x".repeat(MAX_HEAD);
    big_head.send(format!("GET / HTTP/1.1\r\nx-filler: {filler}\r\n\r\n").as_bytes());
    assert_eq!(big_head.response().status, 431);

    let mut chunked = Client::connect(&server);
    chunked.send(b"POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    assert_eq!(chunked.response().status, 501);

    let mut garbage = Client::connect(&server);
    garbage.send(b"\x00\x01 not http\r\n\r\n");
    assert_eq!(garbage.response().status, 400);

    assert!(
        server.requests().is_empty(),
        "refused requests take no reply"
    );
    assert_eq!(server.unserved(), 1);
}
