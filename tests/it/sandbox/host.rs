//! Only commands are confined: the host process and its other threads
//! keep writing and connecting after sandboxed commands ran.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use super::{enforced, stdout, Sandboxed};

/// Writes a file outside any root and makes a loopback connection.
fn write_and_connect(folder: &std::path::Path) {
    let path = folder.join(format!("{:?}.txt", std::thread::current().id()));
    std::fs::write(&path, "host\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "host\n");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.write_all(b"ping").unwrap();
    let (mut server, _) = listener.accept().unwrap();
    let mut buffer = [0u8; 4];
    server.read_exact(&mut buffer).unwrap();
    assert_eq!(&buffer, b"ping");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_and_its_threads_keep_their_rights() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    for _ in 0..3 {
        let part = shell.script("echo ran; echo x > /dev/null").await;
        assert_eq!(stdout(&part), "ran\n");
    }
    let folder = tempfile::tempdir().unwrap();
    write_and_connect(folder.path());
    let other = folder.path().to_path_buf();
    std::thread::spawn(move || write_and_connect(&other))
        .join()
        .unwrap();
    let other = folder.path().to_path_buf();
    tokio::task::spawn_blocking(move || write_and_connect(&other))
        .await
        .unwrap();
    let other = folder.path().to_path_buf();
    tokio::spawn(async move { write_and_connect(&other) })
        .await
        .unwrap();
}
