use starweaver::environment::{glob, grep, GlobOptions, GrepOptions, LocalEnvironmentProvider};
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let p = LocalEnvironmentProvider::new("target/bench-tree-50k").unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let r = grep(
            &p,
            "needle_rare",
            &GrepOptions::default().with_max_matches(1000),
        )
        .await
        .unwrap();
        eprintln!("grep {} {:?}", r.matches.len(), t.elapsed());
        let t = std::time::Instant::now();
        let r = glob(
            &p,
            "**/*.rs",
            &GlobOptions::default().with_max_results(100000),
        )
        .await
        .unwrap();
        eprintln!("glob all {} {:?}", r.entries.len(), t.elapsed());
        let t = std::time::Instant::now();
        let mut o = GlobOptions::default().with_max_results(100000);
        o.respect_ignore = false;
        let r = glob(&p, "**/*.rs", &o).await.unwrap();
        eprintln!("glob noignore {} {:?}", r.entries.len(), t.elapsed());
        let t = std::time::Instant::now();
        let r = glob(&p, "**/*_07.rs", &o).await.unwrap();
        eprintln!("glob noignore few {} {:?}", r.entries.len(), t.elapsed());
        let t = std::time::Instant::now();
        let mut g = GrepOptions::default().with_max_matches(1000);
        g.respect_ignore = false;
        let r = grep(&p, "needle_rare", &g).await.unwrap();
        eprintln!("grep noignore {} {:?}", r.matches.len(), t.elapsed());
    }
}
