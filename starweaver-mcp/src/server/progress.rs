//! A served call's progress, relayed to the client that asked for it: what the tool reports
//! through its context (a re-served MCP server's own progress included) goes out as
//! `notifications/progress` with the client's token, all of it before the call's result.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use rmcp::RoleServer;
use starweaver_core::tools::{ToolProgress, ToolProgressSink};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Updates that may wait to be sent; a tool that reports faster than the client reads loses
/// the ones past this many (each update supersedes the last).
const BACKLOG: usize = 256;

/// One call's relay: the sink its tool reports to, and the task that tells the client.
pub(crate) struct ProgressRelay {
    sink: ToolProgressSink,
    done: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl ProgressRelay {
    /// Starts relaying to `peer` under `token`.
    pub(crate) fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let (sender, mut updates) = mpsc::channel::<ToolProgress>(BACKLOG);
        let (done, mut finished) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let send = |update: ToolProgress| {
                let mut notification =
                    ProgressNotificationParam::new(token.clone(), update.progress);
                notification.total = update.total;
                notification.message = update.message;
                peer.notify_progress(notification)
            };
            loop {
                tokio::select! {
                    biased;
                    Some(update) = updates.recv() => {
                        if send(update).await.is_err() {
                            // The client is gone; the call ends on its cancellation.
                            return;
                        }
                    }
                    _ = &mut finished => break,
                }
            }
            // The call returned: what it reported before that still goes, nothing after.
            while let Ok(update) = updates.try_recv() {
                if send(update).await.is_err() {
                    return;
                }
            }
        });
        let sink = ToolProgressSink::new(move |report| {
            let _ = sender.try_send(report.update);
        });
        Self { sink, done, task }
    }

    /// The sink the call's context reports to.
    pub(crate) fn sink(&self) -> ToolProgressSink {
        self.sink.clone()
    }

    /// Sends what the call reported so far, then stops: call it before answering, so every
    /// progress notification precedes the result.
    pub(crate) async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}
