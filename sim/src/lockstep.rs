//! Parallel stepping of devices that only talk through links of at least one cycle.
//!
//! A device's cycle `c` reads only what arrived by cycle `c`, and what it sends in cycle `c`
//! arrives at cycle `c + 1` or later. So within one cycle the devices are independent: they
//! can be stepped at once on several threads, and the frames they exchanged are moved on the
//! calling thread between cycles, in a fixed order. The result does not depend on the
//! number of threads (a test checks this bit for bit).
//!
//! [`lockstep`] runs rounds. Each round, `between` runs alone on the calling thread (move
//! frames, observe, decide whether to go on), then `step(i)` runs for every device `i` on
//! the thread that owns it (thread 0 is the calling thread). Device `i` starts on thread
//! `i % threads`; after [`CALIBRATION_ROUNDS`] rounds, in which every step is timed, the
//! devices are dealt to the threads by their measured cost (largest first, each to the
//! least loaded thread), so that a heavy device (a 16-port switch, a 128-message NIC) does
//! not leave the other threads waiting at every round. The threads synchronize twice a
//! round through two atomics; a waiting thread spins briefly, then parks until it is
//! unparked.
//!
//! The devices themselves are usually held in `Mutex`es (of `&mut` references) that the
//! `step` and `between` closures lock: a lock is never contended, since the rounds keep the
//! two phases apart.
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Rounds whose device steps are timed before the devices are dealt to the threads by
/// cost.
pub const CALIBRATION_ROUNDS: u64 = 32;

/// Deals devices of `cost` to `threads` threads: the costliest first, each to the thread
/// with the least cost so far (ties to the lower thread). Returns each device's thread.
pub fn deal_by_cost(cost: &[u64], threads: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cost.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(cost[i]), i));
    let mut load = vec![0u64; threads.max(1)];
    let mut owner = vec![0; cost.len()];
    for i in order {
        let t = (0..load.len()).min_by_key(|&t| (load[t], t)).unwrap_or(0);
        owner[i] = t;
        load[t] += cost[i];
    }
    owner
}

/// Stack of a worker thread: a device's step can be deep (rust-hdl's nested `update`
/// calls, large structs on the stack in unoptimized builds), like the main thread's, which
/// `ntsim` and the tests set to 256 MiB or more. It is address space until touched.
const WORKER_STACK: usize = 256 << 20;

/// Waits until `ready()` holds: spins for a few microseconds (a round's two halves
/// usually end close together), then parks until the thread that makes it true unparks
/// this one (a timeout guards against a lost wake-up). Parking matters when the machine
/// is loaded: a thread that kept spinning or yielding would take the core its partner
/// needs.
fn wait_until(ready: impl Fn() -> bool) {
    for _ in 0..4000 {
        if ready() {
            return;
        }
        std::hint::spin_loop();
    }
    while !ready() {
        std::thread::park_timeout(std::time::Duration::from_micros(200));
    }
}

/// Runs rounds of `between()` (on the calling thread) then `step(i)` for `i` in `0..n`
/// (spread over `threads` threads), until `between` returns `Ok(false)` or an error. The
/// first error of a round (the lowest device index) stops the run and is returned.
/// `threads` is capped at `n`; 0 is an error.
pub fn lockstep<S, B>(n: usize, threads: usize, step: S, mut between: B) -> Result<(), String>
where
    S: Fn(usize) -> Result<(), String> + Sync,
    B: FnMut() -> Result<bool, String>,
{
    if threads == 0 {
        return Err("lockstep: threads must be at least 1".into());
    }
    let threads = threads.min(n.max(1));
    if threads == 1 {
        while between()? {
            for i in 0..n {
                step(i)?;
            }
        }
        return Ok(());
    }
    // Device `i`'s thread, and its step time (ns) over the calibration rounds.
    let owner: Vec<AtomicUsize> = (0..n).map(|i| AtomicUsize::new(i % threads)).collect();
    let cost: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let run_mine = |t: usize, round: u64, errs: &mut Vec<(usize, String)>| {
        let timed = round <= CALIBRATION_ROUNDS;
        for i in 0..n {
            if owner[i].load(Ordering::Relaxed) != t {
                continue;
            }
            let t0 = timed.then(std::time::Instant::now);
            if let Err(e) = step(i) {
                errs.push((i, e));
            }
            if let Some(t0) = t0 {
                cost[i].fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            }
        }
    };
    // Round r starts when `round` becomes r; a worker adds one to `done` when it finished
    // round r; `stop` ends the workers at the next round.
    let round = AtomicU64::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let errors: Mutex<Vec<(usize, String)>> = Mutex::new(vec![]);
    let main = std::thread::current();
    std::thread::scope(|s| {
        let mut workers = vec![];
        for t in 1..threads {
            let (round, done, stop, errors, run_mine, main) =
                (&round, &done, &stop, &errors, &run_mine, &main);
            // `owner` is written by the calling thread between rounds only, before it
            // publishes the next round (Release); a worker reads it after seeing that
            // round (Acquire).
            let h = std::thread::Builder::new()
                .name(format!("lockstep-{t}"))
                .stack_size(WORKER_STACK)
                .spawn_scoped(s, move || {
                    let mut seen = 0u64;
                    loop {
                        wait_until(|| round.load(Ordering::Acquire) != seen);
                        seen = round.load(Ordering::Acquire);
                        if stop.load(Ordering::Acquire) {
                            return;
                        }
                        let mut errs = vec![];
                        run_mine(t, seen, &mut errs);
                        if !errs.is_empty() {
                            errors.lock().expect("errors lock").extend(errs);
                        }
                        if done.fetch_add(1, Ordering::AcqRel) + 1 == threads - 1 {
                            main.unpark();
                        }
                    }
                });
            match h {
                Ok(h) => workers.push(h.thread().clone()),
                Err(e) => {
                    stop.store(true, Ordering::Release);
                    round.fetch_add(1, Ordering::AcqRel);
                    workers.iter().for_each(|w| w.unpark());
                    return Err(format!("lockstep: cannot start a thread: {e}"));
                }
            }
        }
        let wake = || workers.iter().for_each(|w| w.unpark());
        let finish = |r: Result<(), String>| {
            stop.store(true, Ordering::Release);
            round.fetch_add(1, Ordering::AcqRel);
            wake();
            r
        };
        let mut r = 0u64;
        loop {
            match between() {
                Ok(true) => {}
                Ok(false) => return finish(Ok(())),
                Err(e) => return finish(Err(e)),
            }
            r += 1;
            done.store(0, Ordering::Release);
            round.store(r, Ordering::Release);
            wake();
            let mut errs = vec![];
            run_mine(0, r, &mut errs);
            wait_until(|| done.load(Ordering::Acquire) == threads - 1);
            if r == CALIBRATION_ROUNDS {
                let c: Vec<u64> = cost.iter().map(|x| x.load(Ordering::Relaxed)).collect();
                for (o, t) in owner.iter().zip(deal_by_cost(&c, threads)) {
                    o.store(t, Ordering::Relaxed);
                }
            }
            let mut all = std::mem::take(&mut *errors.lock().expect("errors lock"));
            all.extend(errs);
            if let Some((_, e)) = all.into_iter().min_by_key(|(i, _)| *i) {
                return finish(Err(e));
            }
        }
    })
}
