//! The [`LoopbackServer`]: a listener on 127.0.0.1 with its own thread
//! and runtime, the script it answers from and the requests it saw.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::time::{sleep, timeout};

use super::connection::serve;
use super::reply::Reply;
use super::request::Recorded;

/// How long the `wait_for` methods wait before giving up and returning
/// what arrived.
const WAIT_LIMIT: Duration = Duration::from_secs(30);

/// A scripted HTTP/1.1 server on a free port of 127.0.0.1, so provider
/// tests never leave the machine. It runs on its own thread and runtime:
/// a sync test that spawns the CLI and an async test in any runtime can
/// both use it. Dropping it closes the listener and every connection,
/// `Hang` ones included.
pub struct LoopbackServer {
    address: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// What the server thread and the test share.
pub(super) struct Shared {
    state: Mutex<State>,
    /// Signalled whenever a request is recorded (for sync waiters).
    arrived: Condvar,
    /// The number of requests recorded (for async waiters).
    count: watch::Sender<usize>,
    connections: AtomicUsize,
    hangups: AtomicUsize,
}

struct State {
    script: VecDeque<Reply>,
    /// How many replies the script had at the start.
    length: usize,
    requests: Vec<Recorded>,
}

impl LoopbackServer {
    /// Starts a server that answers the n-th request it reads (on any
    /// connection, in arrival order) with `script[n]`, and every request
    /// past the script with a 500 JSON error naming its number.
    pub fn start(script: Vec<Reply>) -> LoopbackServer {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .expect("the loopback server binds a free port on 127.0.0.1");
        listener
            .set_nonblocking(true)
            .expect("the loopback listener becomes non-blocking");
        let address = listener
            .local_addr()
            .expect("the loopback listener has an address");
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                length: script.len(),
                script: script.into(),
                requests: Vec::new(),
            }),
            arrived: Condvar::new(),
            count: watch::Sender::new(0),
            connections: AtomicUsize::new(0),
            hangups: AtomicUsize::new(0),
        });
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name(format!("loopback-{}", address.port()))
            .spawn({
                let shared = shared.clone();
                move || run(listener, shared, stopped)
            })
            .expect("the loopback server thread starts");
        LoopbackServer {
            address,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash: the base URL to
    /// give a provider client.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The socket address, for raw clients.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Every request read so far, in the order the script answered them.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().requests.clone()
    }

    /// Blocks until `count` requests have arrived (or 30 s pass) and
    /// returns them all: for sync tests that must know a request reached
    /// the server.
    pub fn wait_for_requests(&self, count: usize) -> Vec<Recorded> {
        let deadline = Instant::now() + WAIT_LIMIT;
        let mut state = self.shared.lock();
        while state.requests.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = match self.shared.arrived.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        state.requests.clone()
    }

    /// [`Self::wait_for_requests`] for async tests: waits without blocking
    /// the test's runtime (not under a paused clock, which would end the
    /// wait at once).
    pub async fn requests_arrived(&self, count: usize) -> Vec<Recorded> {
        let mut seen = self.shared.count.subscribe();
        let _ = timeout(WAIT_LIMIT, seen.wait_for(|seen| *seen >= count)).await;
        self.requests()
    }

    /// How many scripted replies no request has taken yet.
    pub fn unserved(&self) -> usize {
        self.shared.lock().script.len()
    }

    /// How many connections the server accepted: 1 for several requests
    /// means the client kept its connection alive.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// How many `Hang` replies saw their client close the connection: a
    /// cancelled or timed-out request lets go of its socket.
    pub fn hangups(&self) -> usize {
        self.shared.hangups.load(Ordering::SeqCst)
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Shared {
    /// Records `request` and hands out the reply it gets.
    pub(super) fn take(&self, request: Recorded) -> Reply {
        let mut state = self.lock();
        state.requests.push(request);
        let number = state.requests.len();
        let length = state.length;
        let reply = state
            .script
            .pop_front()
            .unwrap_or_else(|| past_script(number, length));
        drop(state);
        self.arrived.notify_all();
        self.count.send_replace(number);
        reply
    }

    /// Counts a `Hang` whose client went away.
    pub(super) fn hung_up(&self) {
        self.hangups.fetch_add(1, Ordering::SeqCst);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The answer to request `number` when the script of `length` replies is
/// used up: a test that sends one request too many sees which.
fn past_script(number: usize, length: usize) -> Reply {
    Reply::json(
        500,
        json!({"error": {
            "message": format!(
                "loopback server: request {number} is past the end of the script ({length} replies)"
            ),
            "type": "loopback_script_exhausted",
            "param": null,
            "code": null,
        }}),
    )
}

/// The server thread: accepts until told to stop (or the server is
/// dropped); dropping the runtime then drops every connection task, which
/// closes its socket.
fn run(listener: std::net::TcpListener, shared: Arc<Shared>, stopped: oneshot::Receiver<()>) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    runtime.block_on(async move {
        let Ok(listener) = TcpListener::from_std(listener) else {
            return;
        };
        tokio::select! {
            _ = stopped => {}
            () = accept(listener, shared) => {}
        }
    });
}

/// Accepts connections and serves each on its own task.
async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                shared.connections.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve(stream, shared.clone()));
            }
            // Out of descriptors, say: try again shortly.
            Err(_) => sleep(Duration::from_millis(10)).await,
        }
    }
}
