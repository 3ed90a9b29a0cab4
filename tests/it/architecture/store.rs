//! The run store on a database is a crate of its own: the core, with every feature on, names
//! no database crate (it keeps only the `RunStore` contract and the in-memory store), and the
//! facade brings `starweaver-store` in only with its `store` feature.

use crate::common::cargo;

use super::providers::normal_closure;

#[test]
fn the_core_builds_no_database_crate_with_every_feature() {
    let metadata = cargo::metadata(&["--all-features"]);
    let core = cargo::package(&metadata, "starweaver-core")["id"]
        .as_str()
        .unwrap();
    let below_core = normal_closure(&metadata, core);
    for crate_name in [
        "sqlx",
        "sqlx-core",
        "sqlx-postgres",
        "libsqlite3-sys",
        "starweaver-store",
    ] {
        assert!(
            !below_core.contains(crate_name),
            "the core depends on {crate_name}; it belongs in starweaver-store"
        );
    }
}

#[test]
fn the_lean_facade_leaves_the_store_out_and_the_default_brings_it() {
    let lean = cargo::normal_tree("starweaver", &["--no-default-features"]);
    assert!(
        !lean.contains("sqlx") && !lean.contains("starweaver-store"),
        "the facade without default features depends on the database crates"
    );
    let default = cargo::normal_tree("starweaver", &[]);
    assert!(default.contains("starweaver-store"), "{default:?}");
}
