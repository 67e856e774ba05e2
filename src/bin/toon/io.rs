//! Input and output: a file or the standard streams. A reader that closes the pipe early
//! (`toon … | head`) ends the program quietly, as other Unix tools do.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::Failure;

/// Standard input for `-` or no path.
fn is_stdin(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// The whole input, and how to name it in messages.
pub(crate) struct Input {
    pub(crate) bytes: Vec<u8>,
    pub(crate) label: String,
}

impl Input {
    pub(crate) fn read(path: Option<&Path>) -> Result<Input, Failure> {
        match path {
            p if is_stdin(p) => {
                let mut bytes = Vec::new();
                io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|e| Failure::because("cannot read standard input", e))?;
                Ok(Input {
                    bytes,
                    label: "<stdin>".into(),
                })
            }
            Some(path) => {
                // A name that is not UTF-8 is shown lossily, never refused.
                let label = path.display().to_string();
                let bytes = std::fs::read(path)
                    .map_err(|e| Failure::because(format_args!("cannot read {label}"), e))?;
                Ok(Input { bytes, label })
            }
            None => unreachable!("no path is standard input"),
        }
    }
}

/// The input as a buffered reader, read as it is consumed, and how to name it in messages.
pub(crate) struct Stream {
    pub(crate) reader: Box<dyn BufRead>,
    pub(crate) label: String,
    /// A file's size (standard input has none until it is read).
    pub(crate) size: Option<u64>,
}

impl Stream {
    pub(crate) fn open(path: Option<&Path>) -> Result<Stream, Failure> {
        match path {
            p if is_stdin(p) => Ok(Stream {
                reader: Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
                label: "<stdin>".into(),
                size: None,
            }),
            Some(path) => {
                let label = path.display().to_string();
                let file = File::open(path)
                    .map_err(|e| Failure::because(format_args!("cannot read {label}"), e))?;
                let size = file.metadata().ok().map(|m| m.len());
                Ok(Stream {
                    reader: Box::new(BufReader::with_capacity(1 << 16, file)),
                    label,
                    size,
                })
            }
            None => unreachable!("no path is standard input"),
        }
    }
}

/// Where output goes: buffered, remembering a closed pipe so that the error it causes deep in
/// a serializer can be told apart from a real one.
pub(crate) struct BufferedOutput {
    out: BufWriter<Box<dyn Write>>,
    file: Option<PathBuf>,
    closed_pipe: bool,
}

impl BufferedOutput {
    /// Standard output, or the file at `path` (created or truncated).
    pub(crate) fn open(path: Option<&Path>) -> Result<BufferedOutput, Failure> {
        let (out, file): (Box<dyn Write>, _) = match path {
            None => (Box::new(io::stdout().lock()), None),
            Some(path) => {
                let file = File::create(path).map_err(|e| {
                    Failure::because(format_args!("cannot write {}", path.display()), e)
                })?;
                (Box::new(file), Some(path.to_owned()))
            }
        };
        Ok(BufferedOutput {
            out: BufWriter::with_capacity(1 << 16, out),
            file,
            closed_pipe: false,
        })
    }

    /// Ends the output after `written`: a final newline and a flush on success. A closed pipe
    /// is success; on failure a partly written output file is removed.
    pub(crate) fn finish(mut self, written: Result<(), Failure>) -> Result<(), Failure> {
        let result = written.and_then(|()| {
            self.write_all(b"\n")
                .and_then(|()| self.flush())
                .map_err(|e| self.write_failure(e))
        });
        match result {
            _ if self.closed_pipe => Ok(()),
            Err(failure) => {
                if let Some(path) = &self.file {
                    let _ = std::fs::remove_file(path);
                }
                Err(failure)
            }
            ok => ok,
        }
    }

    fn write_failure(&self, e: io::Error) -> Failure {
        match &self.file {
            Some(path) => Failure::because(format_args!("cannot write {}", path.display()), e),
            None => Failure::because("cannot write output", e),
        }
    }

    fn note(&mut self, result: io::Result<usize>) -> io::Result<usize> {
        if let Err(e) = &result {
            self.closed_pipe |= e.kind() == io::ErrorKind::BrokenPipe;
        }
        result
    }
}

impl Write for BufferedOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.out.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.out.flush().map(|()| 0);
        self.note(result).map(drop)
    }
}
