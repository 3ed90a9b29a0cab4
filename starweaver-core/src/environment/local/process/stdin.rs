//! Standard input: given bytes written then closed, or, for background
//! processes, a pipe kept open for later writes.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;

/// Longest a background write may block on a process that does not read
/// its input (the pipe is full): past it the write fails instead of
/// holding the call.
pub(super) const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Writes `input` and closes the pipe. A process that exits (or closes
/// its input) before reading everything is not an error: it simply did
/// not want the rest.
pub(super) async fn feed(mut pipe: ChildStdin, input: Vec<u8>) {
    let _ = pipe.write_all(&input).await;
    let _ = pipe.shutdown().await;
}

/// Writes `input` to an open pipe, bounded by [`WRITE_TIMEOUT`].
pub(super) async fn write(pipe: &mut ChildStdin, input: &[u8]) -> std::io::Result<()> {
    match tokio::time::timeout(WRITE_TIMEOUT, async {
        pipe.write_all(input).await?;
        pipe.flush().await
    })
    .await
    {
        Ok(result) => result,
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "the process did not read its input within {} s (its input pipe is full)",
                WRITE_TIMEOUT.as_secs()
            ),
        )),
    }
}
