//! When to try a request again, and how long to wait: exponential backoff with full jitter,
//! bounded in attempts and in total time, and the server's `retry-after` honoured.

use std::time::{Duration, SystemTime};

/// How failed requests are retried. Only failures that cannot have been billed are retried:
/// a rate limit or overload answer (408, 409, 429, 5xx but 501 and 505, 529), or a connection that was never
/// made. A request that timed out or broke mid-answer is not sent again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 sends once).
    pub max_retries: u32,
    /// Wait before the first retry, doubled for each next one.
    pub initial_delay: Duration,
    /// Longest wait between two attempts.
    pub max_delay: Duration,
    /// Total time all attempts and waits may take; a retry that would wait past it is not made.
    pub max_elapsed: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_elapsed: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    #[must_use]
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0-based): the server's `retry-after` when it
    /// gave one, else a random wait up to `initial_delay * 2^retry` (capped at `max_delay`).
    /// `random` is a number in `[0, 1)`, passed in so the schedule is testable.
    #[must_use]
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, random: f64) -> Duration {
        if let Some(wait) = retry_after {
            return wait;
        }
        let factor = 2u32.saturating_pow(retry.min(30));
        let ceiling = self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_delay);
        ceiling.mul_f64(random.clamp(0.0, 1.0))
    }
}

/// Whether an HTTP status means "try again later" rather than "this request is wrong": 408,
/// 409, 429 and the server errors, except 501 and 505 (the server will never do it).
#[must_use]
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (status >= 500 && !matches!(status, 501 | 505))
}

/// The wait a server asked for: `retry-after-ms` (milliseconds), or `retry-after` as seconds
/// or an HTTP date. Absurd values are capped at an hour so a hostile server cannot park a run.
#[must_use]
pub fn parse_retry_after(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    const CAP: Duration = Duration::from_secs(3600);
    if let Some(ms) = retry_after_ms.and_then(|text| text.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(
                (ms / 1000.0).min(CAP.as_secs_f64()),
            ));
        }
    }
    let text = retry_after?.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        if seconds.is_finite() && seconds >= 0.0 {
            return Some(Duration::from_secs_f64(seconds.min(CAP.as_secs_f64())));
        }
        return None;
    }
    let date = httpdate::parse_http_date(text).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO).min(CAP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_jitters_below_it() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(0, None, 0.999_999).as_millis(), 499);
        assert_eq!(policy.delay(2, None, 0.5), Duration::from_secs(1));
        assert_eq!(policy.delay(20, None, 0.5), Duration::from_secs(10));
        assert_eq!(policy.delay(3, None, 0.0), Duration::ZERO);
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(7)), 0.1),
            Duration::from_secs(7)
        );
    }

    #[test]
    fn retry_after_reads_milliseconds_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            parse_retry_after(Some("1500"), Some("9"), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after(None, Some(" 2 "), now),
            Some(Duration::from_secs(2))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(None, Some(&later), now),
            Some(Duration::from_secs(30))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(None, Some(&earlier), now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after(None, Some("soon"), now), None);
        assert_eq!(parse_retry_after(None, Some("-4"), now), None);
        assert_eq!(
            parse_retry_after(None, Some("1e30"), now),
            Some(Duration::from_secs(3600))
        );
    }

    #[test]
    fn only_try_later_statuses_are_retried() {
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422, 501, 505] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }
}
