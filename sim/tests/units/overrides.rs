//! `--set KEY=VALUE` ([`nt_sim::overrides`]) and `ntsim sweep`'s value lists
//! ([`nt_sim::sweep`]).
use nt_sim::overrides::{apply, config, parse_value};
use nt_sim::sweep::{parse_seeds, parse_vary};
use toml::{Table, Value};

const TOPO: &str = "seed = 1\n\
    [[host]]\nname = \"h0\"\nprogram = \"ndp\"\n\
    [[host]]\nname = \"h1\"\nprogram = \"ndp\"\n\
    [[switch]]\nname = \"s0\"\nports = 4\nmode = \"trim\"\n\
    [[link]]\na = \"h0\"\nb = \"s0:0\"\ndelay = 10\n\
    [[link]]\na = \"h1\"\nb = \"s0:1\"\ndelay = 10\n";

fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

#[test]
fn values_are_toml_or_else_strings() {
    assert_eq!(parse_value("6"), Value::Integer(6));
    assert_eq!(parse_value("0.5"), Value::Float(0.5));
    assert_eq!(parse_value("true"), Value::Boolean(true));
    assert_eq!(parse_value("\"x y\""), Value::String("x y".into()));
    assert_eq!(parse_value("trim"), Value::String("trim".into()));
    assert_eq!(parse_value("s0:1"), Value::String("s0:1".into()));
    assert_eq!(
        parse_value("[1, 2]"),
        Value::Array(vec![Value::Integer(1), Value::Integer(2)])
    );
}

#[test]
fn a_key_reaches_every_element_one_by_name_or_one_by_index() {
    let c = config(
        TOPO,
        &sets(&[
            "seed=9",
            "host.rtt_pkts=6",
            "host[h1].rtt_pkts=4",
            "link[0].delay=77",
            "switch.mode=droptail",
            "output.pcap=[\"h0-s0:0\"]",
        ]),
    )
    .unwrap();
    assert_eq!(c.seed, 9);
    let rtt: Vec<Option<u8>> = c.host.iter().map(|h| h.rtt_pkts).collect();
    assert_eq!(rtt, vec![Some(6), Some(4)]);
    assert_eq!((c.link[0].delay, c.link[1].delay), (77, c.link[1].delay));
    assert_ne!(c.link[1].delay, 77);
    assert_eq!(c.switch[0].mode.name(), "droptail");
    assert_eq!(c.output.pcap, vec!["h0-s0:0".to_string()]);
    // No sets: the file as it is.
    assert_eq!(config(TOPO, &[]).unwrap().seed, 1);
}

#[test]
fn a_key_that_matches_nothing_or_is_unknown_is_an_error() {
    let err = |s: &[&str]| config(TOPO, &sets(s)).unwrap_err();
    assert!(err(&["host[h9].rtt_pkts=4"]).contains("no host[h9]"));
    assert!(err(&["host[5].rtt_pkts=4"]).contains("no host[5]"));
    // a table the file does not have is made, and the topology says what it thinks of it
    assert!(err(&["route.x=1"]).contains("route"));
    let mut t: Table = "route = []".parse().unwrap();
    assert!(apply(&mut t, &sets(&["route.x=1"]))
        .unwrap_err()
        .contains("the file has no route"));
    assert!(err(&["host.rtt_pktz=4"]).contains("rtt_pktz"));
    assert!(err(&["seed"]).contains("expected KEY=VALUE"));
    assert!(err(&["seed.x=1"]).contains("seed is a value, not a table"));
    assert!(err(&["host[h0]=1"]).contains("names a setting, not an element"));
    assert!(err(&["ho st.x=1"]).contains("is not a setting's name"));
    assert!(err(&["host[h0.x=1"]).contains("without its ']'"));
    assert!(err(&["host.rtt_pkts=many"]).starts_with("topology after --set"));
    // one line, as every error of ntsim
    assert!(
        !err(&["link.delay=-1"]).trim_end().contains('\n'),
        "{}",
        err(&["link.delay=-1"])
    );
    let mut t: Table = TOPO.parse().unwrap();
    assert!(apply(&mut t, &sets(&["a[]=1"])).is_err());
}

#[test]
fn vary_lists_split_at_top_level_commas() {
    assert_eq!(
        parse_vary("host.rtt_pkts=2, 4,6").unwrap(),
        ("host.rtt_pkts".into(), sets(&["2", "4", "6"]))
    );
    assert_eq!(
        parse_vary("output.pcap=[\"a\",\"b\"],[\"c\"]").unwrap().1,
        sets(&["[\"a\",\"b\"]", "[\"c\"]"])
    );
    assert_eq!(
        parse_vary("x=\"a,b\",c").unwrap().1,
        sets(&["\"a,b\"", "c"])
    );
    for bad in ["x", "=1", "x=1,,2", "x="] {
        assert!(parse_vary(bad).is_err(), "{bad}");
    }
}

#[test]
fn seeds_are_lists_and_inclusive_ranges() {
    assert_eq!(parse_seeds("1,2,3").unwrap(), vec![1, 2, 3]);
    assert_eq!(parse_seeds("1..=3, 7").unwrap(), vec![1, 2, 3, 7]);
    for bad in ["", "a", "3..=1", "1..=1000000", "1..2"] {
        assert!(parse_seeds(bad).is_err(), "{bad}");
    }
}
