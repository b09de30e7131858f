//! The shipped examples (`examples/`): every scenario builds as `ntsim run` builds it, and
//! the workload files W1 to W5 read as CDFs with the means their headers state.
use nt_sim::net::{read_cdf, read_cdf_clamped, NetConfig, Network};
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Mean size of a CDF (each line's size for the probability it adds).
fn mean(cdf: &[(u64, f64)]) -> f64 {
    let mut prev = 0.0;
    cdf.iter()
        .map(|&(b, p)| {
            let m = (p - prev) * b as f64;
            prev = p;
            m
        })
        .sum()
}

#[test]
fn every_example_scenario_builds_with_its_workload() {
    let dir = examples();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        n += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let cfg = NetConfig::from_toml(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let net = Network::build(&cfg, &|f: &str| {
            std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{f}: {e}"))
        })
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert!(
            net.msgs.len() > 100,
            "{path:?}: {} messages",
            net.msgs.len()
        );
        assert!(net.msgs.iter().all(|m| (8..=38_912).contains(&m.bytes)));
    }
    assert!(n >= 2, "{n} example scenarios");
}

#[test]
fn the_published_workloads_read_with_their_stated_means() {
    let dir = examples().join("workloads");
    // (file, the mean its header states, the mean clamped into 8..=38,912 bytes)
    for (w, full, clamped) in [
        ("W1", 184.5, 186.1),
        ("W2", 440.8, 370.2),
        ("W3", 2_927.4, 1_257.0),
        ("W4", 127_796.6, 11_606.6),
        ("W5", 2_515_863.3, 30_808.5),
    ] {
        let name = format!("{w}.cdf");
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let header = format!("# Mean {}", fmt_thousands(full));
        assert!(text.contains(&header), "{name}: no {header:?}");
        // Unclamped, every file has sizes the NIC does not carry: an error that names
        // the way out.
        let e = read_cdf(&text, &name).unwrap_err();
        assert!(e.contains("clamp_sizes = true"), "{e}");
        let c = read_cdf_clamped(&text, &name, true).unwrap();
        assert!(c.iter().all(|&(b, _)| (8..=38_912).contains(&b)));
        let m = mean(&c);
        assert!(
            (m - clamped).abs() < 0.1,
            "{name}: clamped mean {m}, not {clamped}"
        );
        // The full sizes' mean, as the header says: clamping only at the extremes.
        let lines: Vec<(u64, f64)> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let mut it = l.split_whitespace();
                let b = it.next().unwrap().parse().unwrap();
                (b, it.next().unwrap().parse().unwrap())
            })
            .collect();
        let m = mean(&lines);
        assert!((m - full).abs() < 0.1, "{name}: mean {m}, not {full}");
    }
}

/// `x` with one decimal and thousands separated by commas, as the files' headers write it.
fn fmt_thousands(x: f64) -> String {
    let s = format!("{x:.1}");
    let (int, frac) = s.split_once('.').unwrap();
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out}.{frac}")
}
