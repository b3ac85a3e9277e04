fn main() {
    for arg in std::env::args().skip(1) {
        let o = argmend::repair(arg.as_bytes());
        println!("{:?} => {:?} {:?} {:?}", arg, o.text(), o.verdict(), o.fixes().iter().map(|f| (f.kind.name(), f.offset)).collect::<Vec<_>>());
        // one byte at a time
        let mut r = argmend::Repairer::new(argmend::Options::default());
        let mut s = String::new();
        for b in arg.as_bytes() { s.push_str(r.feed(std::slice::from_ref(b)).unwrap()); let snap = r.snapshot().to_string(); if !snap.is_empty() && serde_json::from_str::<serde_json::Value>(&snap).is_err() { println!("   BAD SNAPSHOT {:?}", snap); } }
        let o2 = r.finish().unwrap();
        if o2.text() != o.text() || o2.fixes() != o.fixes() { println!("   CHUNKED DIFFERS: {:?} {:?}", o2.text(), o2.fixes()); }
        if !o2.text().starts_with(&s) { println!("   NOT APPEND-ONLY: {:?}", s); }
        if o.verdict() != argmend::Verdict::NotJson && serde_json::from_str::<serde_json::Value>(o.text()).is_err() { println!("   INVALID OUTPUT"); }
    }
}
