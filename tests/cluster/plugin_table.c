// A library a program loads while it runs (loaded_library.c): static data
// written by the program's parallel loops.
double plugin_table[100000];
int plugin_calls;

double* plugin_data(void) {
  ++plugin_calls;
  return plugin_table;
}
