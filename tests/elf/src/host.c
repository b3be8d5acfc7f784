/* An ordinary host object: valid ELF, wrong machine. */
int host_function(int x) { return x + 1; }
