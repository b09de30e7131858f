//! Unit tests of `nt_sim::lockstep`: dealing devices to threads and parallel stepping.
use nt_sim::lockstep::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

/// A toy network: each device holds a state, mixes in what arrived, and sends to its
/// right neighbour with a delay of one round. Its trace must not depend on `threads`.
fn ring(n: usize, threads: usize, rounds: u64, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state: Vec<u64> = (0..n).map(|_| rng.gen()).collect();
    let mut outbox = vec![0u64; n];
    let cells: Vec<Mutex<(&mut u64, &mut u64)>> = state
        .iter_mut()
        .zip(outbox.iter_mut())
        .map(|(s, o)| Mutex::new((s, o)))
        .collect();
    let mut trace = vec![];
    let mut r = 0;
    lockstep(
        n,
        threads,
        |i| {
            let mut c = cells[i].lock().unwrap();
            let v = c.0.wrapping_mul(6364136223846793005).wrapping_add(i as u64);
            *c.0 = v;
            *c.1 = v >> 7;
            Ok(())
        },
        || {
            let outs: Vec<u64> = cells.iter().map(|c| *c.lock().unwrap().1).collect();
            for (i, c) in cells.iter().enumerate() {
                let mut c = c.lock().unwrap();
                *c.0 ^= outs[(i + n - 1) % n];
                trace.push(*c.0);
            }
            r += 1;
            Ok(r <= rounds)
        },
    )
    .unwrap();
    trace
}

#[test]
fn devices_are_dealt_by_cost() {
    // One heavy device and four light ones: the heavy one alone on a thread.
    assert_eq!(deal_by_cost(&[10, 10, 40, 10, 10], 2), vec![1, 1, 0, 1, 1]);
    // Equal costs: dealt in turn.
    assert_eq!(deal_by_cost(&[5, 5, 5, 5], 2), vec![0, 1, 0, 1]);
    assert_eq!(deal_by_cost(&[3, 1], 4), vec![0, 1]);
    assert!(deal_by_cost(&[], 2).is_empty());
}

#[test]
fn threads_do_not_change_the_result() {
    for (n, seed) in [(1, 1), (2, 2), (5, 3), (16, 4)] {
        let one = ring(n, 1, 200, seed);
        for t in [2, 3, 8] {
            assert_eq!(ring(n, t, 200, seed), one, "n {n} threads {t}");
        }
    }
}

#[test]
fn the_lowest_failing_device_is_reported_and_the_run_stops() {
    for threads in [1, 2, 4] {
        let mut rounds = 0;
        let r = lockstep(
            4,
            threads,
            |i| {
                if i == 1 || i == 3 {
                    Err(format!("device {i} failed"))
                } else {
                    Ok(())
                }
            },
            || {
                rounds += 1;
                Ok(true)
            },
        );
        assert_eq!(r, Err("device 1 failed".to_string()), "threads {threads}");
        assert_eq!(rounds, 1, "threads {threads}");
    }
}

#[test]
fn between_errors_and_zero_threads() {
    let r = lockstep(3, 2, |_| Ok(()), || Err("stop here".to_string()));
    assert_eq!(r, Err("stop here".to_string()));
    let r = lockstep(3, 0, |_| Ok(()), || Ok(false));
    assert!(r.unwrap_err().contains("at least 1"));
}
