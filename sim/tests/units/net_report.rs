//! Unit tests of `nt_sim::net_report`: quantiles, chart ticks and the SVG charts.
use nt_sim::net_report::*;

#[test]
fn quantiles_and_ticks() {
    let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
    assert_eq!(quantile(&mut v, 0.5), Some(3.0));
    assert_eq!(quantile(&mut v, 1.0), Some(5.0));
    assert_eq!(quantile(&mut v, 0.0), Some(1.0));
    assert_eq!(quantile(&mut [], 0.5), None);
    assert_eq!(tick_step(10.0), 2.0);
    assert_eq!(tick_step(100.0), 20.0);
    assert_eq!(tick_step(3.0), 0.5);
}

#[test]
fn charts_are_svg_with_every_series() {
    let s = line_chart(
        "t <1>",
        "x",
        "y",
        &[
            ("a".into(), vec![(0.0, 1.0), (1.0, 2.0)]),
            ("b".into(), vec![(0.0, 0.0), (1.0, 3.0)]),
        ],
    );
    assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
    assert_eq!(s.matches("<polyline").count(), 2);
    assert!(s.contains("t &lt;1&gt;"));
    let e = line_chart("e", "x", "y", &[]);
    assert!(e.contains("(no data)"));
    let sc = scatter_chart("s", "x", "y", &[(1.0, 2.0), (3.0, 4.0)]);
    assert_eq!(sc.matches("<circle").count(), 2);
}
