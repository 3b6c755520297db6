//! Adversarial loopback servers for what the simulator cannot do: a port where nothing is
//! accepted (another origin a redirect may point to), and a server that answers every page
//! with the same id-less items.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A port where nothing is accepted: whether any client connected to it shows afterwards.
pub struct OtherOrigin(TcpListener);

impl OtherOrigin {
    pub fn new() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Self(l)
    }

    pub fn port(&self) -> u16 {
        self.0.local_addr().unwrap().port()
    }

    pub fn was_contacted(&self) -> bool {
        self.0.accept().is_ok()
    }
}

/// A loopback server that answers Digest (any signature) and serves the same page of id-less
/// items for every page of `/disks` and `/globalAlerts`, claiming 1000 items in all.
pub struct SamePage {
    pub port: u16,
    log: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SamePage {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log2, stop2) = (log.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let open = Arc::new(AtomicUsize::new(0));
            while !stop2.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (log, stop, open) = (log2.clone(), stop2.clone(), open.clone());
                        open.fetch_add(1, Ordering::SeqCst);
                        std::thread::spawn(move || {
                            let _ = Self::serve(stream, &log, &stop);
                            open.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
            while open.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        Self {
            port,
            log,
            stop,
            thread: Some(thread),
        }
    }

    fn serve(
        stream: TcpStream,
        log: &Mutex<Vec<String>>,
        stop: &AtomicBool,
    ) -> std::io::Result<()> {
        stream.set_read_timeout(Some(Duration::from_millis(50)))?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut out = stream;
        while !stop.load(Ordering::Relaxed) {
            let mut head = String::new();
            let mut line = String::new();
            loop {
                match reader.read_line(&mut line) {
                    Ok(0) => return Ok(()),
                    Ok(_) if line.ends_with('\n') => {
                        if line == "\r\n" {
                            break;
                        }
                        head.push_str(&line);
                        line.clear();
                    }
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut =>
                    {
                        if stop.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            let target = head.split(' ').nth(1).unwrap_or("").to_string();
            let signed = head
                .lines()
                .any(|l| l.to_ascii_lowercase().starts_with("authorization:"));
            log.lock().unwrap().push(format!(
                "GET {target} {}",
                if signed { "signed" } else { "unsigned" }
            ));
            let (status, extra, body) = if !signed {
                (
                    "401 Unauthorized",
                    "WWW-Authenticate: Digest realm=\"MMS Public API\", nonce=\"n0\", algorithm=MD5, qop=\"auth\"\r\n",
                    String::new(),
                )
            } else if target.contains("/disks") {
                (
                    "200 OK",
                    "",
                    r#"{"results":[{"partitionName":"data"},{"partitionName":"journal"}],"totalCount":1000,"links":[]}"#.to_string(),
                )
            } else {
                (
                    "200 OK",
                    "",
                    r#"{"results":[{"status":"OPEN","eventTypeName":"HOST_DOWN"},{"status":"OPEN","eventTypeName":"HOST_DOWN"}],"totalCount":1000,"links":[]}"#.to_string(),
                )
            };
            write!(
                out,
                "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )?;
            out.flush()?;
        }
        Ok(())
    }

    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for SamePage {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
