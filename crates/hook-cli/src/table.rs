//! Text tables for people: `list`, `trust --list`, `rewake list` and `replay` print theirs here.
//! A leaf: it uses no other module of the crate, so the commands that print tables do not import
//! one another.

/// Prints `header` and `rows` as columns two spaces apart, each as wide as its widest cell (the
/// last column unpadded).
pub(crate) fn print_table<const N: usize>(header: &[String; N], rows: &[[String; N]]) {
    let mut widths = header.each_ref().map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(header).chain(rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| if i + 1 == N { cell.clone() } else { format!("{cell:<w$}") })
            .collect();
        println!("{}", cells.join("  "));
    }
}
