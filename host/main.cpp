// saturn: the command-line driver (all logic lives in host/cli).
#include "host/cli/cli.hpp"

int main(int argc, char** argv) { return saturn::saturn_main(argc, argv); }
