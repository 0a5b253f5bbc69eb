/* wine_started.c - linked into every program of ./build.sh test wine. When SRT_WINE_STARTED names a
   file, the program makes it before main: the witness that wine did start it. build.sh's wrapper
   scripts (build/win/srt-pack, ...) start a program once more when it failed without one, because
   wine now and then fails to start a program nested under another wine program, with no message
   (twice in CI, in test_prune and test_hf, each time a tool the test ran failed, and passed after). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void srt_wine_started(void) {
    const char *path = getenv("SRT_WINE_STARTED");
    FILE *f;
    if (path && *path && (f = fopen(path, "wb")) != NULL) fclose(f);
}
