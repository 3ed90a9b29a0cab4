//! What the client reads from the server's messages as they arrive, in their order: progress
//! notifications, handed to the call they belong to, and tool list changes, marked on the
//! toolset's signal. The SDK hands notifications to its handler on tasks of their own, which
//! may run after the response that followed them; read here, on the transport, a call's
//! progress is always delivered before its result and a list change made by a call is known
//! when the call returns.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{JsonRpcMessage, JsonRpcNotification, ProgressNotificationParam};
use rmcp::model::{ProgressToken, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use starweaver_core::tools::{ToolListChanges, ToolProgress};
use tokio::sync::mpsc::{channel, Receiver, Sender};

/// Progress notifications kept for tokens no call has claimed yet (a server may report before
/// the call that sent the token has registered for it); older ones are dropped.
const MAX_EARLY: usize = 64;

/// Progress notifications of one call that may wait for the call to pass them on; a server
/// that reports faster loses the updates past this many (each one supersedes the last).
const MAX_PENDING: usize = 256;

/// A transport that reads progress and list changes off the messages it passes on.
pub(crate) struct Tap<T> {
    inner: T,
    routes: Arc<ProgressRoutes>,
    changes: ToolListChanges,
}

impl<T> Tap<T> {
    /// `inner`, reporting progress to `routes` and list changes to `changes`.
    pub(crate) fn new(inner: T, routes: Arc<ProgressRoutes>, changes: ToolListChanges) -> Self {
        Self {
            inner,
            routes,
            changes,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(JsonRpcNotification { notification, .. }) = &message {
            match notification {
                ServerNotification::ProgressNotification(progress) => {
                    self.routes.deliver(&progress.params);
                }
                ServerNotification::ToolListChangedNotification(_) => self.changes.mark_changed(),
                _ => {}
            }
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Where the progress of the calls in flight goes, by their progress tokens.
#[derive(Default)]
pub(crate) struct ProgressRoutes {
    state: Mutex<Routes>,
}

#[derive(Default)]
struct Routes {
    claimed: HashMap<ProgressToken, Sender<ProgressNotificationParam>>,
    early: VecDeque<ProgressNotificationParam>,
}

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands a notification to the call that claimed its token, or keeps it (bounded) for a
    /// call about to. Its message is cut to the length a progress record keeps.
    fn deliver(&self, params: &ProgressNotificationParam) {
        let mut params = params.clone();
        params.meta = None;
        if let Some(message) = &mut params.message {
            ToolProgress::cut_message(message);
        }
        let mut routes = self.lock();
        if let Some(sender) = routes.claimed.get(&params.progress_token) {
            // A full backlog drops the update; a call that stopped listening needs none.
            let _ = sender.try_send(params);
            return;
        }
        if routes.early.len() >= MAX_EARLY {
            routes.early.pop_front();
        }
        routes.early.push_back(params);
    }

    /// The progress of the call that sent `token`, from now on and what already arrived,
    /// until the claim is dropped.
    pub(crate) fn claim(self: &Arc<Self>, token: ProgressToken) -> ProgressClaim {
        let (sender, receiver) = channel(MAX_PENDING);
        let mut routes = self.lock();
        let early = std::mem::take(&mut routes.early);
        for params in early {
            if params.progress_token == token {
                let _ = sender.try_send(params);
            } else {
                routes.early.push_back(params);
            }
        }
        routes.claimed.insert(token.clone(), sender);
        ProgressClaim {
            routes: Arc::clone(self),
            token,
            receiver,
        }
    }
}

/// One call's progress notifications; dropping it stops their delivery.
pub(crate) struct ProgressClaim {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
    pub(crate) receiver: Receiver<ProgressNotificationParam>,
}

impl Drop for ProgressClaim {
    fn drop(&mut self) {
        let removed = self.routes.lock().claimed.remove(&self.token);
        drop(removed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn token(id: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(id))
    }

    #[test]
    fn progress_that_came_before_the_claim_is_kept_and_bounded() {
        let routes = Arc::new(ProgressRoutes::default());
        routes.deliver(&ProgressNotificationParam::new(token(1), 1.0));
        for step in 0..100 {
            routes.deliver(&ProgressNotificationParam::new(token(2), f64::from(step)));
        }
        assert_eq!(routes.lock().early.len(), MAX_EARLY);
        let mut claim = routes.claim(token(2));
        assert_eq!(claim.receiver.try_recv().map(|p| p.progress), Ok(36.0));
        routes.deliver(
            &ProgressNotificationParam::new(token(2), 200.0).with_message("x".repeat(5000)),
        );
        let mut last = None;
        while let Ok(params) = claim.receiver.try_recv() {
            last = Some(params);
        }
        let last = last.unwrap_or_else(|| ProgressNotificationParam::new(token(0), 0.0));
        assert_eq!(last.progress, 200.0);
        assert_eq!(
            last.message.map(|m| m.chars().count()),
            Some(starweaver_core::tools::MAX_PROGRESS_MESSAGE_CHARS)
        );
        drop(claim);
        assert!(routes.lock().claimed.is_empty());
    }
}
