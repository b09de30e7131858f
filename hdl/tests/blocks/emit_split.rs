use nt_hdl::emit::split::*;

fn block(body: &[&str]) -> String {
    let mut v = vec!["module m(a, b, reset);", "    localparam  k = 4'h3;", OPEN];
    v.extend(body);
    v.push(CLOSE);
    v.push("endmodule");
    v.join("\n")
}

fn pieces(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<String>> = None;
    for l in text.split('\n') {
        if l == OPEN {
            cur = Some(Vec::new());
        } else if l == CLOSE {
            out.push(cur.take().expect("open"));
        } else if let Some(c) = cur.as_mut() {
            c.push(l.trim().to_string());
        }
    }
    out
}

#[test]
fn short_blocks_are_kept() {
    let t = block(&["        x = a;", "        y = b;"]);
    assert_eq!(split_blocks(&t, 10, 1), t);
}

#[test]
fn groups_are_split_ordered_by_dependency_and_reset_is_spread() {
    let t = block(&[
        "        y = x + b;", // reads x, assigned below: placed after x's group
        "        x = a;",
        "        if (a) begin",
        "            x = b;",
        "        end",
        "        else begin",
        "            z = k;",
        "        end",
        "        w = b;",
        "        if (reset) begin",
        "            y = 4'h0;",
        "            w = 4'h1;",
        "        end",
    ]);
    let p = pieces(&split_blocks(&t, 0, 1));
    let want: Vec<Vec<&str>> = vec![
        // x and z are assigned in one statement: one group
        vec![
            "x = a;",
            "if (a) begin",
            "x = b;",
            "end",
            "else begin",
            "z = k;",
            "end",
        ],
        vec!["y = x + b;", "if (reset) begin", "y = 4'h0;", "end"],
        vec!["w = b;", "if (reset) begin", "w = 4'h1;", "end"],
    ];
    assert_eq!(p, want);
    // Larger pieces keep whole groups together, in the same order.
    let p = pieces(&split_blocks(&t, 0, 9));
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].len() + p[1].len(), 15);
    assert_eq!(p[1][0], "y = x + b;");
    assert_eq!(p[1][4], "w = b;");
}

#[test]
fn a_piece_reading_only_constants_joins_its_neighbour() {
    let t = block(&["        x = a;", "        c = k;", "        d = 4'h2;"]);
    let p = pieces(&split_blocks(&t, 0, 1));
    assert_eq!(p, vec![vec!["x = a;", "c = k;", "d = 4'h2;"]]);
}

#[test]
fn cycles_and_unknown_constructs_keep_the_block() {
    let cyc = block(&["        x = y;", "        y = x;"]);
    assert_eq!(split_blocks(&cyc, 0, 1), cyc);
    let case = block(&["        case (a)", "        endcase", "        x = a;"]);
    assert_eq!(split_blocks(&case, 0, 1), case);
    let unbalanced = block(&["        if (a) begin", "            x = a;"]);
    assert_eq!(split_blocks(&unbalanced, 0, 1), unbalanced);
}

#[test]
fn a_reset_branch_that_assigns_its_own_condition_stays_whole() {
    let t = block(&[
        "        x = a;",
        "        if (x) begin",
        "            x = 4'h0;",
        "            y = a;",
        "        end",
    ]);
    let p = pieces(&split_blocks(&t, 0, 1));
    assert_eq!(p.len(), 1);
}

/// A sink whose `ready` reads its state and whose other output reads the `valid` it is
/// given: one block made `ready` depend on `valid` (Verilator's `UNOPTFLAT` once the
/// source's `valid` reads `ready`); cut into groups, `ready` reads only what it reads.
#[test]
fn split_groups_gives_each_output_its_own_block() {
    let t = block(&[
        "        ready = full_q;",
        "        took = a & ready;",
        "        if (reset) begin",
        "            took = 1'b0;",
        "        end",
    ]);
    let p = pieces(&split_groups(&t, &|m| m == "m"));
    assert_eq!(
        p,
        vec![
            vec!["ready = full_q;"],
            vec![
                "took = a & ready;",
                "if (reset) begin",
                "took = 1'b0;",
                "end"
            ],
        ]
    );
    // The same block whole, as rust-hdl emits it, in a module not named, and when below
    // the size split_always cuts.
    assert_eq!(split_groups(&t, &|m| m == "other"), t);
    assert_eq!(split_always(&t), t);
}

/// The lint waivers waive only `UNUSEDSIGNAL`, each for signals it names: no `UNOPTFLAT`
/// (circular logic) or other rule is switched off for a file.
#[test]
fn lint_waivers_only_name_unused_signals() {
    let rules: Vec<&str> = nt_hdl::emit::LINT_WAIVERS
        .lines()
        .filter(|l| l.starts_with("lint_off"))
        .collect();
    assert!(rules.len() > 10, "{rules:?}");
    for r in rules {
        assert!(
            r.starts_with("lint_off -rule UNUSEDSIGNAL ") && r.contains(" -match \""),
            "{r}"
        );
    }
}
