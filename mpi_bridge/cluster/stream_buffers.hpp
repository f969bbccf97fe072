// The C library sizes a stream's buffer by its file's block size
// (st_blksize, at most BUFSIZ) and allocates it from the program's heap at
// the stream's first read or write. A rank other than 0 reads and writes
// private copies on its temporary file system (private_view.hpp), whose
// block size may differ from the real files' (a parallel or network file
// system's): its buffers would differ in size from rank 0's, and with them
// the program's heap, and the job would stop at the next parallel region
// ("not laid out alike"). So in serial code every rank gives each stream it
// opens on a regular file a buffer of the size the real file gets, from
// the program's heap at the open, and frees it when the stream is closed.
#pragma once

#include <stdio.h>

namespace selfsched::cluster {

// After `stream` was opened on `path` (as the program named it): its
// buffer, when the job has several ranks and the call is serial code.
void give_stream_buffer(FILE* stream, const char* path);
// `stream` is closed (or reopened): its buffer, if it had one from here, goes.
void drop_stream_buffer(FILE* stream);

}  // namespace selfsched::cluster
