//! Where fresh ids come from: UUID v7 minted without asking the operating
//! system for randomness each time.
//!
//! An agent loop builds a tool context, and so a run id and a
//! conversation id, for every call; drawing 10 random bytes from the OS
//! for each made ids most of a cheap dispatch's cost. Instead each id is
//! built from three parts, in UUID v7's layout (RFC 9562, "fixed bit-length
//! dedicated counter", method 1):
//!
//! - the Unix time in milliseconds (48 bits), so ids sort by creation;
//! - a counter (16 bits) that restarts each millisecond, so ids minted in
//!   one millisecond keep their order and stay distinct within the
//!   process;
//! - 58 bits mixed from a per-process random seed (drawn once) and the
//!   two parts above, so two processes minting in the same millisecond
//!   still differ: two ids of different processes collide only with
//!   probability 2^-58 even when their clock and counter agree.
//!
//! Time and counter live in one atomic word and only grow: a clock that
//! steps back, or more than 65,536 ids in a millisecond, carries the
//! counter into the millisecond field rather than repeating an id. The ids
//! are unique, not secret; nothing should use them as tokens.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use uuid::{Builder, Uuid};

/// Bits of the counter under the millisecond in a sequence value.
const COUNTER_BITS: u32 = 16;

/// Bits a UUID v7 has for the Unix time in milliseconds.
const MILLIS_BITS: u32 = 48;

/// Bits of seeded randomness in each id (what is left of UUID v7's 74
/// free bits after the counter).
const RANDOM_BITS: u32 = 74 - COUNTER_BITS;

/// The last sequence value handed out in this process: the millisecond
/// above [`COUNTER_BITS`] bits of counter.
static LAST: AtomicU64 = AtomicU64::new(0);

/// The process's random seed, drawn on the first id.
static SEED: OnceLock<u64> = OnceLock::new();

/// A fresh UUID v7, unique within the process, practically unique across
/// processes, and greater than every one this process minted before.
pub(super) fn fresh_uuid() -> Uuid {
    let sequence = next_sequence(&LAST, now_millis());
    compose(sequence, seed())
}

/// The milliseconds since the Unix epoch, 0 for a clock set before it
/// (the counter then still keeps ids apart and in order).
fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The seed: std's per-thread random hashing keys (drawn from the OS) over
/// the process id and the time, so no random-number crate is needed.
fn seed() -> u64 {
    *SEED.get_or_init(|| {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos()),
        );
        hasher.finish()
    })
}

/// The next sequence value after `last`: the millisecond `now_millis`
/// with the counter at 0 when the clock has moved on, else one more than
/// the last value (so it never repeats or goes back, whatever the clock
/// does).
fn next_sequence(last: &AtomicU64, now_millis: u64) -> u64 {
    let floor = (now_millis & ((1 << MILLIS_BITS) - 1)) << COUNTER_BITS;
    let mut seen = last.load(Ordering::Relaxed);
    loop {
        // Wraps only after the year 10889, when UUID v7 runs out of
        // milliseconds too.
        let next = floor.max(seen.wrapping_add(1));
        // Relaxed suffices: all updates of one atomic are totally ordered,
        // which is all uniqueness and per-thread order need.
        match last.compare_exchange_weak(seen, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(current) => seen = current,
        }
    }
}

/// The UUID v7 for a sequence value: its millisecond, then its counter,
/// then [`RANDOM_BITS`] bits mixed from the seed and the sequence.
fn compose(sequence: u64, seed: u64) -> Uuid {
    let millis = sequence >> COUNTER_BITS;
    let counter = u128::from(sequence & ((1 << COUNTER_BITS) - 1));
    let random = u128::from(mix(sequence ^ seed) >> (64 - RANDOM_BITS));
    // The 74 bits after the millisecond, as UUID v7 lays them out: 12
    // (`rand_a`), then 62 (`rand_b`), with room left for the version and
    // variant bits the builder writes.
    let free = (counter << RANDOM_BITS) | random;
    let rand_a = free >> 62;
    let rand_b = free & ((1 << 62) - 1);
    let tail = (rand_a << 64) | rand_b;
    let bytes = tail.to_be_bytes();
    let mut counter_random_bytes = [0_u8; 10];
    counter_random_bytes.copy_from_slice(&bytes[6..]);
    Builder::from_unix_timestamp_millis(millis, &counter_random_bytes).into_uuid()
}

/// SplitMix64's finalizer: a bijection on `u64` that spreads every input
/// bit over the output, so neighbouring sequence values look unrelated.
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn fresh_uuids_are_version_7_and_increase() {
        let mut previous = fresh_uuid();
        for _ in 0..10_000 {
            let next = fresh_uuid();
            assert_eq!(next.get_version_num(), 7);
            assert_eq!(next.get_variant(), uuid::Variant::RFC4122);
            assert!(next > previous, "{next} after {previous}");
            previous = next;
        }
    }

    #[test]
    fn fresh_uuids_are_unique_across_threads_and_ordered_in_each() {
        const THREADS: usize = 8;
        const EACH: usize = 5_000;
        let minted: Vec<Vec<Uuid>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..THREADS)
                .map(|_| scope.spawn(|| (0..EACH).map(|_| fresh_uuid()).collect::<Vec<_>>()))
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().unwrap_or_default())
                .collect()
        });
        let mut all = HashSet::new();
        for ids in &minted {
            assert_eq!(ids.len(), EACH);
            assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
            all.extend(ids.iter().copied());
        }
        assert_eq!(all.len(), THREADS * EACH);
    }

    #[test]
    fn the_sequence_restarts_each_millisecond_and_never_goes_back() {
        let last = AtomicU64::new(0);
        assert_eq!(next_sequence(&last, 1_000), 1_000 << COUNTER_BITS);
        assert_eq!(next_sequence(&last, 1_000), (1_000 << COUNTER_BITS) + 1);
        assert_eq!(next_sequence(&last, 1_001), 1_001 << COUNTER_BITS);
        // A clock stepping back keeps counting from where it was.
        assert_eq!(next_sequence(&last, 5), (1_001 << COUNTER_BITS) + 1);
        // A full counter carries into the millisecond.
        last.store((2_000 << COUNTER_BITS) | 0xFFFF, Ordering::Relaxed);
        assert_eq!(next_sequence(&last, 2_000), 2_001 << COUNTER_BITS);
    }

    #[test]
    fn composed_uuids_carry_the_millisecond_counter_and_seeded_bits() {
        let sequence = (0x0193_3C1E_8F3A << COUNTER_BITS) | 0xABCD;
        let id = compose(sequence, 42);
        assert_eq!(id.get_version_num(), 7);
        assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
        let value = id.as_u128();
        assert_eq!(value >> 80, 0x0193_3C1E_8F3A);
        // `rand_a` holds the counter's top 12 bits, `rand_b` starts with
        // its low 4.
        assert_eq!((value >> 64) & 0xFFF, 0xABC);
        assert_eq!((value >> 58) & 0xF, 0xD);
        // Another seed changes only the random bits.
        let other = compose(sequence, 43).as_u128();
        assert_eq!(other >> 58, value >> 58);
        assert_ne!(other, value);
        // Later sequence values sort later, whatever their random bits.
        assert!(compose(sequence + 1, 42) > id);
        assert!(compose(sequence + (1 << COUNTER_BITS), 0) > compose(sequence, u64::MAX));
    }

    #[test]
    fn the_random_bits_differ_from_id_to_id() {
        let tails: HashSet<u128> = (0..1_000)
            .map(|_| fresh_uuid().as_u128() & ((1 << RANDOM_BITS) - 1))
            .collect();
        assert_eq!(tails.len(), 1_000);
    }
}
