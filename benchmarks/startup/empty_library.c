// A shared library with nothing in it: what preloading any library costs
// (opening and mapping it), the floor under libselfsched's row of
// `make bench-startup`.
int startup_empty_library_probe(void) { return 0; }
