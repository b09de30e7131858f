use nt_hdl::emit::*;

#[test]
fn casts_become_size_casts() {
    assert_eq!(width_exact("y = ((a$q) & 16'hffff);"), "y = 16'(a$q);");
    assert_eq!(
        width_exact("y = ((b + (c)) & 5'h1f) | d;"),
        "y = 5'(b + (c)) | d;"
    );
    // Not a cast: the mask is not all ones, or the operand is not parenthesised twice.
    assert_eq!(width_exact("y = ((a) & 8'h0f);"), "y = ((a) & 8'h0f);");
    assert_eq!(
        width_exact("y = (x & (a) & 8'hff);"),
        "y = (x & (a) & 8'hff);"
    );
}

#[test]
fn sized_part_select_offsets_become_unsized() {
    assert_eq!(width_exact("x[(64'h8c)+:(16)]"), "x[140+:16]");
    assert_eq!(width_exact("x[(32'ha)+:(6)]"), "x[10+:6]");
}
