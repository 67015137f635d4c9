//! Large random straight-line RDMA programs, for measuring the syntactic check
//! (`benches/robust.rs`) and for comparing it with the reference gb on programs
//! larger than the generator's (`tests/robust.rs`).

/// A deterministic random straight-line program over `rdmasc`: `threads` threads,
/// thread i on node i + 1, each node holding `locs_per_node` locations, and
/// `instrs` instructions in all (spread round-robin over the threads): CPU reads
/// and writes of the thread's own node, puts and gets towards other nodes, polls
/// (only of pending operations, so no poll blocks), rfences and mfences.
pub fn random_program(threads: usize, locs_per_node: usize, instrs: usize, seed: u64) -> String {
    let threads = threads.max(2);
    let locs_per_node = locs_per_node.max(1);
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |m: usize| -> usize {
        // a 64-bit LCG, high bits
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % m.max(1)
    };
    let loc = |n: usize, k: usize| format!("x{n}_{k}");
    let mut s = format!("test R{threads}x{instrs}\n\"random straight-line program\"\nlibraries rdmasc\n");
    for t in 0..threads {
        s += &format!("thread T{} @ {}\n", t + 1, t + 1);
    }
    for n in 1..=threads {
        for k in 0..locs_per_node {
            s += &format!("loc {} @ {n}\n", loc(n, k));
        }
    }
    let mut bodies: Vec<Vec<String>> = vec![Vec::new(); threads];
    // pending NIC operations per (thread, remote node)
    let mut pending = vec![vec![0usize; threads + 1]; threads];
    let mut regs = vec![0usize; threads];
    for i in 0..instrs {
        let t = i % threads;
        let me = t + 1;
        let other = {
            let o = next(threads - 1) + 1;
            if o >= me {
                o + 1
            } else {
                o
            }
        };
        let line = match next(10) {
            0 | 1 => format!("Write({}, {})", loc(me, next(locs_per_node)), next(3)),
            2 | 3 => {
                regs[t] += 1;
                format!("r{} = Read({})", regs[t], loc(me, next(locs_per_node)))
            }
            4 | 5 => {
                pending[t][other] += 1;
                format!("Put({}, {})", loc(other, next(locs_per_node)), loc(me, next(locs_per_node)))
            }
            6 | 7 => {
                pending[t][other] += 1;
                format!("Get({}, {})", loc(me, next(locs_per_node)), loc(other, next(locs_per_node)))
            }
            8 => match (1..=threads).find(|&n| pending[t][n] > 0) {
                Some(n) => {
                    pending[t][n] -= 1;
                    format!("Poll({n})")
                }
                None => format!("Rfence({other})"),
            },
            _ => {
                if next(2) == 0 {
                    format!("Rfence({other})")
                } else {
                    "Mfence()".to_string()
                }
            }
        };
        bodies[t].push(line);
    }
    for (t, b) in bodies.iter().enumerate() {
        s += &format!("T{}:\n", t + 1);
        for l in b {
            s += &format!("  {l}\n");
        }
    }
    s
}
