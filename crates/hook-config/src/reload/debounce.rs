//! The debounce window (R-HOT-2): a burst of triggers becomes one reload.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

/// A window closes after `quiet` without a trigger, or `max_wait` after its first trigger.
#[derive(Clone, Copy, Debug)]
pub(super) struct Debounce {
    pub(super) quiet: Duration,
    pub(super) max_wait: Duration,
}

/// Waits until a trigger window closes. `false` when the trigger channel is gone.
pub(super) async fn settle(rx: &mut mpsc::UnboundedReceiver<()>, debounce: Debounce) -> bool {
    let first = Instant::now();
    loop {
        let deadline = (Instant::now() + debounce.quiet).min(first + debounce.max_wait);
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(())) => {}
            Ok(None) => return false,
            Err(_) => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Debounce = Debounce { quiet: Duration::from_millis(100), max_wait: Duration::from_secs(2) };

    fn trigger_every(tx: mpsc::UnboundedSender<()>, every: Duration, times: usize) {
        tokio::spawn(async move {
            for _ in 0..times {
                tokio::time::sleep(every).await;
                let _ = tx.send(());
            }
        });
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_closes_one_quiet_window_after_its_last_trigger() {
        // R-HOT-2: three triggers 30 ms apart collapse into one window ending 100 ms after the last.
        let (tx, mut rx) = mpsc::unbounded_channel();
        trigger_every(tx.clone(), Duration::from_millis(30), 3);
        let start = Instant::now();
        assert!(settle(&mut rx, WINDOW).await);
        assert_eq!(start.elapsed(), Duration::from_millis(190));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn endless_triggers_are_cut_at_the_max_wait() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        trigger_every(tx.clone(), Duration::from_millis(50), 1000);
        let start = Instant::now();
        assert!(settle(&mut rx, WINDOW).await);
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_trigger_channel_ends_the_window_with_false() {
        let (tx, mut rx) = mpsc::unbounded_channel::<()>();
        drop(tx);
        assert!(!settle(&mut rx, WINDOW).await);
    }
}
