/* png_ink - pixel counts of a PNG for tests/test_ui.sh.

   ui-png-ink FILE [X Y W H]...
       prints "size W H", then for each rectangle "ink N of M": how many of its M pixels differ
       clearly (sum of |dR|+|dG|+|dB| > 96) from the rectangle's most common colour, which is
       the background there. Text drawn on a plain background gives a few percent; an empty
       area, none. Exit status 1 if the file cannot be read or a rectangle leaves the image. */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include "stb_image.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int w, h, c, a;
    unsigned char *img;
    if (argc < 2 || (argc - 2) % 4 != 0) { fprintf(stderr, "usage: ui-png-ink FILE [X Y W H]...\n"); return 2; }
    if (!(img = stbi_load(argv[1], &w, &h, &c, 3))) { fprintf(stderr, "ui-png-ink: cannot read %s: %s\n", argv[1], stbi_failure_reason()); return 1; }
    printf("size %d %d\n", w, h);
    for (a = 2; a + 3 < argc; a += 4) {
        int x0 = atoi(argv[a]), y0 = atoi(argv[a + 1]), rw = atoi(argv[a + 2]), rh = atoi(argv[a + 3]), x, y, best = 0;
        long ink = 0;
        /* the most common colour, from a histogram of colours quantised to 4 bits per channel */
        static int hist[4096];
        unsigned char bg[3] = {0, 0, 0};
        if (x0 < 0 || y0 < 0 || rw <= 0 || rh <= 0 || x0 + rw > w || y0 + rh > h) { fprintf(stderr, "ui-png-ink: rectangle outside the image\n"); stbi_image_free(img); return 1; }
        for (x = 0; x < 4096; x++) hist[x] = 0;
        for (y = y0; y < y0 + rh; y++)
            for (x = x0; x < x0 + rw; x++) {
                const unsigned char *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
                int k = (p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4);
                if (++hist[k] > best) { best = hist[k]; bg[0] = p[0]; bg[1] = p[1]; bg[2] = p[2]; }
            }
        for (y = y0; y < y0 + rh; y++)
            for (x = x0; x < x0 + rw; x++) {
                const unsigned char *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
                if (abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) > 96) ink++;
            }
        printf("ink %ld of %ld\n", ink, (long)rw * rh);
    }
    stbi_image_free(img);
    return 0;
}
