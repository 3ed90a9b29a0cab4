//! The network: TCP through Landlock, the other socket families through
//! seccomp, both closed by default and open with `network: true`.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};

use starweaver::environment::SandboxPolicy;

use super::{enforced, stdout, Sandboxed};

/// A Python script that connects over TCP to `tcp` and sends a datagram
/// to `udp`, printing what happened to each.
fn client(tcp: u16, udp: u16) -> String {
    format!(
        "python3 -c '
import socket
try:
    socket.create_connection((\"127.0.0.1\", {tcp}), timeout=5).close()
    print(\"tcp connected\")
except OSError as error:
    print(\"tcp refused\", error.errno)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"hi\", (\"127.0.0.1\", {udp}))
    print(\"udp sent\")
except OSError as error:
    print(\"udp refused\", error.errno)
'"
    )
}

struct Listeners {
    tcp: TcpListener,
    udp: UdpSocket,
}

impl Listeners {
    fn new() -> Self {
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        Self { tcp, udp }
    }

    fn script(&self) -> String {
        client(
            self.tcp.local_addr().unwrap().port(),
            self.udp.local_addr().unwrap().port(),
        )
    }

    /// Whether a connection is waiting (the command ended before this is
    /// asked, so anything it sent on loopback has arrived).
    fn accepted(&self) -> bool {
        match self.tcp.accept() {
            Ok(_) => true,
            Err(error) if error.kind() == ErrorKind::WouldBlock => false,
            Err(error) => panic!("{error}"),
        }
    }

    fn received(&self) -> bool {
        let mut buffer = [0u8; 16];
        match self.udp.recv(&mut buffer) {
            Ok(_) => true,
            Err(error) if error.kind() == ErrorKind::WouldBlock => false,
            Err(error) => panic!("{error}"),
        }
    }
}

#[tokio::test]
async fn tcp_and_udp_are_refused_by_default() {
    if !enforced() {
        return;
    }
    let listeners = Listeners::new();
    let shell = Sandboxed::default_policy();
    let part = shell.script(&listeners.script()).await;
    assert_eq!(
        stdout(&part),
        "tcp refused 13\nudp refused 13\n",
        "{}",
        part.content
    );
    assert!(!listeners.accepted(), "a TCP connection went through");
    assert!(!listeners.received(), "a datagram went through");
    assert_eq!(part.metadata["sandbox"]["network"], false);
}

#[tokio::test]
async fn network_true_allows_tcp_and_udp() {
    if !enforced() {
        return;
    }
    let listeners = Listeners::new();
    let shell = Sandboxed::new(SandboxPolicy::default().with_network(true));
    let part = shell.script(&listeners.script()).await;
    assert_eq!(
        stdout(&part),
        "tcp connected\nudp sent\n",
        "{}",
        part.content
    );
    assert!(listeners.accepted(), "no TCP connection arrived");
    assert!(listeners.received(), "no datagram arrived");
    assert_eq!(part.metadata["sandbox"]["network"], true);
}

#[tokio::test]
async fn raw_packet_and_netlink_sockets_and_io_uring_are_refused() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let part = shell
        .script(
            "python3 -c '
import socket
for name, family, kind in [(\"raw\", socket.AF_INET, socket.SOCK_RAW), (\"packet\", socket.AF_PACKET, socket.SOCK_RAW), (\"netlink\", socket.AF_NETLINK, socket.SOCK_RAW), (\"sctp\", socket.AF_INET, socket.SOCK_STREAM)]:
    try:
        socket.socket(family, kind, 132 if name == \"sctp\" else 0).close()
        print(name, \"opened\")
    except OSError as error:
        print(name, \"refused\", error.errno)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
print(\"unix opened\")
'",
        )
        .await;
    assert_eq!(
        stdout(&part),
        "raw refused 13\npacket refused 13\nnetlink refused 13\nsctp refused 13\nunix opened\n",
        "{}",
        part.content
    );
}

// TCP Fast Open connects inside `sendto`, which Landlock's connect rule
// does not see: the data reached the listener before seccomp refused it.
#[tokio::test]
async fn tcp_fast_open_is_refused() {
    if !enforced() {
        return;
    }
    let listeners = Listeners::new();
    let port = listeners.tcp.local_addr().unwrap().port();
    let shell = Sandboxed::default_policy();
    let script = format!(
        "python3 -c '
import socket
try:
    socket.socket().sendto(b\"hi\", socket.MSG_FASTOPEN, (\"127.0.0.1\", {port}))
    print(\"fast open sent\")
except OSError as error:
    print(\"fast open refused\", error.errno)
'"
    );
    let part = shell.script(&script).await;
    assert_eq!(stdout(&part), "fast open refused 13\n", "{}", part.content);
    assert!(!listeners.accepted(), "a fast-open connection went through");
}
