//! `ntsim sweep`: one scenario run for every combination of settings (`--vary
//! KEY=V1,V2,...`, keys as in [`crate::overrides`]) and seeds (`--seeds`), `--jobs` runs
//! at a time. Each run writes its outputs as `ntsim run` does, into `OUT/<run>-<k>`; the
//! sweep writes `OUT/sweep.csv`, one row per run: its name, the values it ran with, its
//! seed and its summary numbers ([`crate::net_cli::Summary`]), and an `error` column for
//! a run that failed (the others still run; the sweep then exits with an error).
use crate::net_cli::{duration, finish, load, run_one, RunArgs, Summary};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Everything `ntsim sweep` takes.
#[derive(Clone, Debug, clap::Args)]
pub struct SweepArgs {
    /// A topology file (TOML) or a built-in scenario's name (`ntsim run --list`); a
    /// scenario of several runs sweeps each.
    pub scenario: String,
    /// A setting and the values it takes, `KEY=V1,V2,...` (repeatable: every combination
    /// runs). Keys as `--set`'s; values are TOML (a list in brackets stays one value).
    #[arg(long = "vary", value_name = "KEY=V1,V2,...")]
    pub vary: Vec<String>,
    /// Seeds to run each combination with: `1,2,3`, `1..=8` or both (`1,5..=7`); default:
    /// the file's seed.
    #[arg(long)]
    pub seeds: Option<String>,
    /// Settings every run takes, `KEY=VALUE` (repeatable; as `ntsim run --set`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output directory: OUT/<run>-<k>/ per run and OUT/sweep.csv.
    #[arg(long, default_value = "out/sweep")]
    pub out: PathBuf,
    /// Runs at a time (1 ..= 256), each on its own thread.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Engine of every run: native, verilator or compiled (as `ntsim run --engine`).
    #[arg(long, value_parser = ["native", "verilator", "compiled"])]
    pub engine: Option<String>,
    /// Overrides each file's `max_cycles`.
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// No line per finished run.
    #[arg(long)]
    pub quiet: bool,
}

/// `KEY=V1,V2,...` as the key and its values (commas inside brackets, braces or quotes
/// do not split).
pub fn parse_vary(s: &str) -> Result<(String, Vec<String>), String> {
    let (k, vs) = s
        .split_once('=')
        .ok_or_else(|| format!("--vary {s}: expected KEY=V1,V2,..."))?;
    let mut vals = vec![];
    let (mut depth, mut quoted, mut cur) = (0i32, false, String::new());
    for c in vs.chars() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                vals.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    vals.push(cur.trim().to_string());
    if k.trim().is_empty() || vals.iter().any(String::is_empty) {
        return Err(format!(
            "--vary {s}: expected KEY=V1,V2,... with no empty value"
        ));
    }
    Ok((k.trim().to_string(), vals))
}

/// `1,2,3`, `1..=8` or a mix, as a list (at most 100,000 seeds).
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, String> {
    let bad = |why: &str| format!("--seeds {s}: {why} (e.g. 1,2,3 or 1..=8)");
    let mut out = vec![];
    for part in s.split(',').map(str::trim) {
        if let Some((a, b)) = part.split_once("..=") {
            let a: u64 = a.trim().parse().map_err(|_| bad("not a number"))?;
            let b: u64 = b.trim().parse().map_err(|_| bad("not a number"))?;
            if b < a || b - a >= 100_000 {
                return Err(bad("empty or too long a range"));
            }
            out.extend(a..=b);
        } else {
            out.push(part.parse().map_err(|_| bad("not a number"))?);
        }
        if out.len() > 100_000 {
            return Err(bad("more than 100,000 seeds"));
        }
    }
    Ok(out)
}

/// One run of the sweep.
struct Job {
    name: String,
    /// Which of the scenario's runs ([`load`]) it is a variant of.
    run: usize,
    values: Vec<String>,
    sets: Vec<String>,
    seed: Option<u64>,
}

/// What came of a run: its seed and summary, or its error.
type Outcome = Result<(u64, Summary), String>;

/// A CSV field, quoted when it must be.
fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `sweep.csv`'s text.
fn table(
    keys: &[String],
    runs: &[(String, String, PathBuf)],
    jobs: &[Job],
    outcomes: &[Option<Outcome>],
) -> String {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    let mut t = String::from("run,base");
    for k in keys {
        t.push(',');
        t.push_str(&csv(k));
    }
    t.push_str(",seed,messages,delivered,median_slowdown,max_slowdown,trimmed,dropped,goodput_gbps,jain_fairness,cycles,cycles_per_sec,error\n");
    for (j, o) in jobs.iter().zip(outcomes) {
        t.push_str(&format!("{},{}", csv(&j.name), csv(&runs[j.run].0)));
        for v in &j.values {
            t.push(',');
            t.push_str(&csv(v));
        }
        match o {
            Some(Ok((seed, s))) => t.push_str(&format!(
                ",{seed},{},{},{},{},{},{},{},{},{},{:.0},\n",
                s.messages,
                s.delivered,
                opt(s.median_slowdown),
                opt(s.max_slowdown),
                s.trimmed,
                s.dropped,
                opt(s.goodput_gbps),
                opt(s.jain_fairness),
                s.cycles,
                s.cycles_per_sec
            )),
            Some(Err(e)) => t.push_str(&format!(
                ",{},,,,,,,,,,,{}\n",
                j.seed.map_or(String::new(), |x| x.to_string()),
                csv(e)
            )),
            None => t.push_str(",,,,,,,,,,,,not run\n"),
        }
    }
    t
}

/// `ntsim sweep`.
pub fn main(a: &SweepArgs) -> Result<(), String> {
    if !(1..=256).contains(&a.jobs) {
        return Err(format!("--jobs {}: give 1 ..= 256", a.jobs));
    }
    let vary = a
        .vary
        .iter()
        .map(|v| parse_vary(v))
        .collect::<Result<Vec<_>, _>>()?;
    let keys: Vec<String> = vary.iter().map(|v| v.0.clone()).collect();
    let seeds: Vec<Option<u64>> = match &a.seeds {
        Some(s) => parse_seeds(s)?.into_iter().map(Some).collect(),
        None => vec![None],
    };
    // Every combination of the values, the first key varying slowest.
    let mut combos: Vec<Vec<String>> = vec![vec![]];
    for (_, vals) in &vary {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push(v.clone());
                    c
                })
            })
            .collect();
    }
    let runs = load(&a.scenario)?;
    let mut jobs = vec![];
    for (run, (base, _, _)) in runs.iter().enumerate() {
        for c in &combos {
            for seed in &seeds {
                let mut sets = a.set.clone();
                sets.extend(keys.iter().zip(c).map(|(k, v)| format!("{k}={v}")));
                jobs.push(Job {
                    name: format!("{base}-{}", jobs.len()),
                    run,
                    values: c.clone(),
                    sets,
                    seed: *seed,
                });
            }
        }
    }
    if jobs.len() > 100_000 {
        return Err(format!(
            "{} runs: a sweep takes at most 100,000",
            jobs.len()
        ));
    }
    // Every run's settings are read before any runs, so a bad key fails at once.
    for j in &jobs {
        crate::overrides::config(&runs[j.run].1, &j.sets)
            .map_err(|e| format!("{}: {e}", j.name))?;
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let csv_path = a.out.join("sweep.csv");
    crate::pcap::create_output("--out", &csv_path)?;
    let total = jobs.len();
    if !a.quiet {
        eprintln!(
            "sweep: {total} runs ({} combinations x {} seeds{}), {} at a time",
            combos.len(),
            seeds.len(),
            if total > combos.len() * seeds.len() {
                ", for each run of the scenario"
            } else {
                ""
            },
            a.jobs
        );
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..total).map(|_| None).collect());
    let start = std::time::Instant::now();
    std::thread::scope(|sc| -> Result<(), String> {
        let mut workers = vec![];
        for w in 0..a.jobs.min(total) {
            let (runs, jobs, next, done, outcomes) = (&runs, &jobs, &next, &done, &outcomes);
            let t = std::thread::Builder::new()
                .name(format!("sweep-{w}"))
                // as the main thread's: the 16-port switch is built on the stack
                .stack_size(1 << 30)
                .spawn_scoped(sc, move || loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(j) = jobs.get(k) else { break };
                    let args = RunArgs {
                        scenario: None,
                        out: a.out.clone(),
                        threads: None,
                        engine: a.engine.clone(),
                        max_cycles: a.max_cycles,
                        seed: j.seed,
                        set: j.sets.clone(),
                        vcd: vec![],
                        vcd_scope: vec![],
                        vcd_cycles: None,
                        wave_format: None,
                        png: false,
                        pcap: vec![],
                        print: false,
                        list: false,
                        quiet: true,
                    };
                    let (_, text, dir) = &runs[j.run];
                    let o = run_one(&j.name, text, dir, &args).and_then(|(cfg, net, r)| {
                        finish(&j.name, &a.scenario, &cfg, &net, &r, &a.out.join(&j.name))
                            .map(|(s, _)| (cfg.seed, s))
                    });
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if !a.quiet {
                        let what = match &o {
                            Ok((_, s)) => format!(
                                "{} of {} messages delivered in {} cycles",
                                s.delivered, s.messages, s.cycles
                            ),
                            Err(e) => format!("failed: {e}"),
                        };
                        let el = start.elapsed().as_secs_f64();
                        let left = el / n as f64 * (total - n) as f64;
                        eprintln!(
                            "sweep: {n} of {total} done ({}: {what}){}",
                            j.name,
                            if n < total {
                                format!(", about {} left", duration(left))
                            } else {
                                String::new()
                            }
                        );
                    }
                    outcomes.lock().expect("no worker panics holding it")[k] = Some(o);
                })
                .map_err(|e| format!("cannot start a sweep thread: {e}"))?;
            workers.push(t);
        }
        // Every worker is joined, so that one that panicked is an error here, not a panic
        // of the scope.
        let panicked = workers
            .into_iter()
            .map(|t| t.join())
            .filter(Result::is_err)
            .count();
        if panicked > 0 {
            return Err(format!("{panicked} sweep worker(s) panicked"));
        }
        Ok(())
    })?;
    let outcomes = outcomes.into_inner().expect("workers joined");
    let text = table(&keys, &runs, &jobs, &outcomes);
    std::fs::write(&csv_path, &text)
        .map_err(|e| format!("cannot write {}: {e}", csv_path.display()))?;
    print!("{text}");
    println!("(table in {})", csv_path.display());
    let failed = outcomes
        .iter()
        .filter(|o| !matches!(o, Some(Ok(_))))
        .count();
    if failed > 0 {
        return Err(format!(
            "{failed} of {total} runs failed (their errors are in {})",
            csv_path.display()
        ));
    }
    Ok(())
}
