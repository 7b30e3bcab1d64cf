// meshoptimizer (https://github.com/zeux/meshoptimizer), the field's standard mesh simplifier, from
// the system: Debian's libmeshoptimizer-dev (0.18 or later), Homebrew's meshoptimizer on a Mac.
// scripts/serve and scripts/test install the Debian package when it is missing.
#if __has_include(<meshoptimizer.h>)
#include <meshoptimizer.h>
#else
#error "meshoptimizer.h not found: install libmeshoptimizer-dev (sudo apt-get install libmeshoptimizer-dev; on a Mac: brew install meshoptimizer), or start the server with scripts/serve, which installs it"
#endif
