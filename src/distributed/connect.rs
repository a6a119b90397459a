//! Joining a run: every process listens at its address, connects to each process before
//! it and accepts each one after it, and each pair checks on its new connection that both
//! run the same build, command and input, with the same worker threads. A process that
//! does not join in time, or joins with something else, stops the join with a message
//! that names it.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// What a process says about itself on each new connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hello {
    pub processes: u32,
    pub process: u32,
    pub threads: u32,
    /// The hash of the build, the command's options and the input files' contents.
    pub fingerprint: u64,
}

/// The first bytes of every hello: the protocol and its version.
const MAGIC: [u8; 8] = *b"grafter\x01";
const HELLO_BYTES: usize = MAGIC.len() + 3 * 4 + 8;

/// How long a process waits between attempts to connect to one not yet listening.
const RETRY: Duration = Duration::from_millis(100);

/// Why a process could not join its run.
#[derive(Debug)]
pub enum JoinError {
    /// This process's address cannot be listened on.
    Listen {
        /// The address, as the host file gives it.
        address: String,
        /// Why not.
        error: io::Error,
    },
    /// Some processes did not join in time.
    Missing {
        /// Their numbers and addresses.
        processes: Vec<(usize, String)>,
        /// How long this process waited.
        waited: Duration,
    },
    /// A process runs with something else.
    Mismatch {
        /// Its number.
        process: usize,
        /// What differs, as the end of a sentence about it.
        what: String,
    },
    /// The connection with a process failed while joining.
    Broken {
        /// Its number.
        process: usize,
        /// The failure.
        error: io::Error,
    },
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JoinError::Listen { address, error } => {
                write!(f, "cannot listen on {address}: {error}")
            }
            JoinError::Missing { processes, waited } => {
                let names: Vec<String> = processes
                    .iter()
                    .map(|(i, a)| format!("process {i} ({a})"))
                    .collect();
                write!(
                    f,
                    "{} did not join within {} s; start `grafter solve` with the same options, \
                     --processes and host file, and --process I, on each host (--join-timeout \
                     waits longer)",
                    names.join(", "),
                    waited.as_secs()
                )
            }
            JoinError::Mismatch { process, what } => write!(f, "process {process} {what}"),
            JoinError::Broken { process, error } => {
                write!(
                    f,
                    "the connection with process {process} failed while joining: {error}"
                )
            }
        }
    }
}

impl Hello {
    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut b = Vec::with_capacity(HELLO_BYTES);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&self.processes.to_le_bytes());
        b.extend_from_slice(&self.process.to_le_bytes());
        b.extend_from_slice(&self.threads.to_le_bytes());
        b.extend_from_slice(&self.fingerprint.to_le_bytes());
        out.write_all(&b)?;
        out.flush()
    }

    /// Reads a hello; `None` when the bytes are not one (not a grafter process, or another
    /// version of the protocol).
    fn read(from: &mut impl Read) -> io::Result<Option<Hello>> {
        let mut b = [0u8; HELLO_BYTES];
        from.read_exact(&mut b)?;
        if b[..8] != MAGIC {
            return Ok(None);
        }
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Ok(Some(Hello {
            processes: u32_at(8),
            process: u32_at(12),
            threads: u32_at(16),
            fingerprint: u64::from_le_bytes(b[20..28].try_into().expect("8 bytes")),
        }))
    }

    /// Why `other` (process `other.process`) cannot run with this process, if it cannot.
    fn clash(&self, other: &Hello) -> Option<JoinError> {
        let what = if other.processes != self.processes {
            format!(
                "was started with --processes {}, this one with {}",
                other.processes, self.processes
            )
        } else if other.fingerprint != self.fingerprint {
            "runs another command, other input files or another build of grafter: every process \
             must run the same `grafter solve` options on files with the same contents (only \
             --process differs)"
                .to_string()
        } else if other.threads != self.threads {
            format!(
                "has {} worker threads, this one {}: give every process the same --threads",
                other.threads, self.threads
            )
        } else {
            return None;
        };
        Some(JoinError::Mismatch {
            process: other.process as usize,
            what,
        })
    }
}

/// Connects process `me` of `addresses.len()` processes to all the others within
/// `timeout`: one blocking stream per other process, `None` at `me`, as timely's network
/// takes them.
pub fn connect_all(
    addresses: &[String],
    me: usize,
    hello: Hello,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>, JoinError> {
    let listener =
        TcpListener::bind(addresses[me].as_str()).map_err(|error| JoinError::Listen {
            address: addresses[me].clone(),
            error,
        })?;
    let deadline = Instant::now() + timeout;
    // Set when either half fails: the other half stops waiting.
    let quit = AtomicBool::new(false);
    let (earlier, later) = thread::scope(|scope| {
        let later = scope.spawn(|| {
            let r = accept_later(&listener, addresses, me, hello, deadline, &quit);
            quit.fetch_or(r.is_err(), Ordering::Relaxed);
            r
        });
        let earlier = connect_earlier(addresses, me, hello, deadline, &quit);
        quit.fetch_or(earlier.is_err(), Ordering::Relaxed);
        (
            earlier,
            later
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let mut sockets: Vec<Option<TcpStream>> = earlier?;
    sockets.push(None);
    sockets.extend(later?);
    let missing: Vec<(usize, String)> = sockets
        .iter()
        .enumerate()
        .filter(|&(i, s)| i != me && s.is_none())
        .map(|(i, _)| (i, addresses[i].clone()))
        .collect();
    if !missing.is_empty() {
        return Err(JoinError::Missing {
            processes: missing,
            waited: timeout,
        });
    }
    for (process, s) in sockets.iter().enumerate() {
        if let Some(s) = s {
            let broken = |error| JoinError::Broken { process, error };
            s.set_read_timeout(None).map_err(broken)?;
            s.set_nonblocking(false).map_err(broken)?;
        }
    }
    Ok(sockets)
}

/// Streams to processes `0..me`, each once it listens and answers a matching hello;
/// `None` for those not reached before the deadline.
fn connect_earlier(
    addresses: &[String],
    me: usize,
    hello: Hello,
    deadline: Instant,
    quit: &AtomicBool,
) -> Result<Vec<Option<TcpStream>>, JoinError> {
    let mut out = Vec::with_capacity(me);
    for (i, address) in addresses.iter().enumerate().take(me) {
        let stream = loop {
            match TcpStream::connect(address.as_str()) {
                Ok(s) => break Some(s),
                Err(_) if Instant::now() < deadline && !quit.load(Ordering::Relaxed) => {
                    thread::sleep(RETRY)
                }
                Err(_) => break None,
            }
        };
        let Some(mut stream) = stream else {
            out.push(None);
            continue;
        };
        let broken = |error| JoinError::Broken { process: i, error };
        stream.set_nodelay(true).map_err(broken)?;
        let wait = deadline
            .saturating_duration_since(Instant::now())
            .max(RETRY);
        stream.set_read_timeout(Some(wait)).map_err(broken)?;
        hello.write(&mut stream).map_err(broken)?;
        let theirs = match Hello::read(&mut stream) {
            Ok(Some(h)) => h,
            Ok(None) => {
                return Err(JoinError::Mismatch {
                    process: i,
                    what: format!("at {address} is not a grafter process of this version"),
                })
            }
            Err(error) => return Err(JoinError::Broken { process: i, error }),
        };
        if theirs.process as usize != i {
            return Err(JoinError::Mismatch {
                process: i,
                what: format!(
                    "at {address} says it is process {}: the host files differ",
                    theirs.process
                ),
            });
        }
        if let Some(e) = hello.clash(&theirs) {
            return Err(e);
        }
        out.push(Some(stream));
    }
    Ok(out)
}

/// Streams from processes `me + 1..`, accepted as they come until all are in or the
/// deadline passes. A connection that does not open with a hello is dropped.
fn accept_later(
    listener: &TcpListener,
    addresses: &[String],
    me: usize,
    hello: Hello,
    deadline: Instant,
    quit: &AtomicBool,
) -> Result<Vec<Option<TcpStream>>, JoinError> {
    let mut out: Vec<Option<TcpStream>> = (me + 1..addresses.len()).map(|_| None).collect();
    let listen_error = |error| JoinError::Listen {
        address: addresses[me].clone(),
        error,
    };
    listener.set_nonblocking(true).map_err(listen_error)?;
    while out.iter().any(Option::is_none)
        && Instant::now() < deadline
        && !quit.load(Ordering::Relaxed)
    {
        let mut stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(e) => return Err(listen_error(e)),
        };
        if stream.set_nonblocking(false).is_err()
            || stream.set_nodelay(true).is_err()
            || stream.set_read_timeout(Some(RETRY * 50)).is_err()
        {
            continue;
        }
        let Ok(Some(theirs)) = Hello::read(&mut stream) else {
            continue;
        };
        let from = theirs.process as usize;
        if from <= me || from >= addresses.len() || out[from - me - 1].is_some() {
            return Err(JoinError::Mismatch {
                process: from,
                what: format!(
                    "connected to process {me} as process {from}: give each process its own --process"
                ),
            });
        }
        // The answer lets the other side check this process in turn.
        hello
            .write(&mut stream)
            .map_err(|error| JoinError::Broken {
                process: from,
                error,
            })?;
        if let Some(e) = hello.clash(&theirs) {
            return Err(e);
        }
        out[from - me - 1] = Some(stream);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_addresses(n: usize) -> Vec<String> {
        let listeners: Vec<TcpListener> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
            .collect();
        listeners
            .iter()
            .map(|l| l.local_addr().expect("an address").to_string())
            .collect()
    }

    fn hello(process: u32, fingerprint: u64) -> Hello {
        Hello {
            processes: 3,
            process,
            threads: 2,
            fingerprint,
        }
    }

    #[test]
    fn three_processes_connect_in_a_mesh() {
        let addresses = free_addresses(3);
        let meshes: Vec<_> = thread::scope(|s| {
            let joins: Vec<_> = (0..3)
                .map(|i| {
                    let addresses = &addresses;
                    s.spawn(move || {
                        connect_all(addresses, i, hello(i as u32, 7), Duration::from_secs(10))
                    })
                })
                .collect();
            joins.into_iter().map(|j| j.join().unwrap()).collect()
        });
        for (i, mesh) in meshes.into_iter().enumerate() {
            let mesh = mesh.unwrap_or_else(|e| panic!("process {i}: {e}"));
            let open: Vec<bool> = mesh.iter().map(Option::is_some).collect();
            let mut want = vec![true; 3];
            want[i] = false;
            assert_eq!(open, want);
        }
    }

    #[test]
    fn a_missing_process_and_another_command_are_named() {
        let addresses = free_addresses(3);
        let e = connect_all(&addresses, 0, hello(0, 7), Duration::from_millis(300)).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "process 1 ({}), process 2 ({}) did not join within 0 s",
                addresses[1], addresses[2]
            )),
            "{e}"
        );
        let two = &addresses[..2];
        let results: Vec<_> = thread::scope(|s| {
            let a = s.spawn(|| {
                connect_all(
                    two,
                    0,
                    Hello {
                        processes: 2,
                        ..hello(0, 7)
                    },
                    Duration::from_secs(10),
                )
            });
            let b = s.spawn(|| {
                connect_all(
                    two,
                    1,
                    Hello {
                        processes: 2,
                        ..hello(1, 8)
                    },
                    Duration::from_secs(10),
                )
            });
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        for (i, r) in results.into_iter().enumerate() {
            let e = r.unwrap_err().to_string();
            assert!(
                e.contains(&format!("process {} runs another command", 1 - i)),
                "{e}"
            );
        }
    }
}
