/* gen-unicode - generates the Unicode character-class table of sparsert.h's tokenizer from the
   Unicode Character Database as Debian ships it (package unicode-data, /usr/share/unicode).

     gen-unicode [DIR]                 print the generated block
     gen-unicode --check FILE [DIR]    exit 0 if FILE's generated block is exactly what DIR gives,
                                       1 if it differs (the first differing line is shown)
     gen-unicode --write FILE [DIR]    replace FILE's generated block in place

   DIR (default /usr/share/unicode) must hold UnicodeData.txt (general categories) and
   PropList.txt (the White_Space property and, on its first line, the Unicode version).
   Exit status 2: an input file is missing or malformed.

   The block is what the byte-level BPE pre-tokenizers need: one class per code point (white
   space, upper/lower/other letter, mark, number, punctuation, symbol, separator, other), as a
   table of runs plus a direct table for ASCII. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_CP 0x110000
#define BEGIN_LINE "/* ---- BEGIN GENERATED UNICODE TABLE (tools/gen-unicode.c); do not edit */"
#define END_LINE "/* ---- END GENERATED UNICODE TABLE */"

/* classes; the names are the ones the block defines */
static const char *const class_name[] = {
    "SRT__UC_OTHER", "SRT__UC_SPACE", "SRT__UC_UPPER", "SRT__UC_LOWER", "SRT__UC_LETTER",
    "SRT__UC_MARK", "SRT__UC_NUMBER", "SRT__UC_PUNCT", "SRT__UC_SYMBOL", "SRT__UC_SEPARATOR"};
static const char *const class_doc[] = {
    "Cc that is not white space, Cf, Cs, Co, Cn (unassigned)", "White_Space (PropList.txt); wins over the category",
    "Lu, Lt", "Ll", "Lm, Lo", "Mn, Mc, Me", "Nd, Nl, No", "Pc, Pd, Ps, Pe, Pi, Pf, Po", "Sm, Sc, Sk, So",
    "Zs, Zl, Zp that are not White_Space"};

static int class_of_category(const char *gc) {
    if (gc[0] == 'L') return gc[1] == 'u' || gc[1] == 't' ? 2 : gc[1] == 'l' ? 3 : 4;
    switch (gc[0]) {
        case 'M': return 5;
        case 'N': return 6;
        case 'P': return 7;
        case 'S': return 8;
        case 'Z': return 9;
        default: return 0;
    }
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *b = NULL, *nb;
    size_t len = 0, cap = 0, got;
    if (!f) return NULL;
    do {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65537) * 2;
            if (!(nb = (char *)realloc(b, cap))) { free(b); fclose(f); return NULL; }
            b = nb;
        }
        got = fread(b + len, 1, 65536, f);
        len += got;
    } while (got > 0);
    fclose(f);
    b[len] = 0;
    return b;
}

/* Builds the block into a malloc'd string; NULL (with a message) on failure. */
static char *generate(const char *dir) {
    static unsigned char cls[N_CP];
    char path[1024], version[64] = "?", *data, *line, *out, *o;
    unsigned long range_first = 0;
    int have_first = 0, n_runs = 0, k;
    unsigned long cp;
    size_t cap;
    memset(cls, 0, sizeof cls);
    /* general categories; "<..., First>" / "<..., Last>" pairs cover ranges */
    snprintf(path, sizeof path, "%s/UnicodeData.txt", dir);
    if (!(data = read_file(path))) { fprintf(stderr, "gen-unicode: cannot read %s\n", path); return NULL; }
    for (line = data; *line;) {
        char *eol = strchr(line, '\n'), *f1, *f2;
        unsigned long c;
        if (eol) *eol = 0;
        f1 = strchr(line, ';');
        f2 = f1 ? strchr(f1 + 1, ';') : NULL;
        if (*line) {
            if (!f1 || !f2 || sscanf(line, "%lx", &c) != 1 || c >= N_CP) { fprintf(stderr, "gen-unicode: %s: bad line '%s'\n", path, line); free(data); return NULL; }
            k = class_of_category(f2 + 1);
            if (f2 - f1 > 8 && memcmp(f2 - 8, ", First>", 8) == 0) { range_first = c; have_first = 1; }
            else if (f2 - f1 > 7 && memcmp(f2 - 7, ", Last>", 7) == 0 && have_first) {
                for (cp = range_first; cp <= c; cp++) cls[cp] = (unsigned char)k;
                have_first = 0;
            } else cls[c] = (unsigned char)k;
        }
        line = eol ? eol + 1 : line + strlen(line);
    }
    free(data);
    /* White_Space */
    snprintf(path, sizeof path, "%s/PropList.txt", dir);
    if (!(data = read_file(path))) { fprintf(stderr, "gen-unicode: cannot read %s\n", path); return NULL; }
    if (sscanf(data, "# PropList-%63[0-9.]", version) != 1) snprintf(version, sizeof version, "?");
    else if (version[0] && version[strlen(version) - 1] == '.') version[strlen(version) - 1] = 0;   /* "15.0.0.txt" */
    for (line = data; *line;) {
        char *eol = strchr(line, '\n');
        unsigned long a, b;
        if (eol) *eol = 0;
        if (*line != '#' && strstr(line, "; White_Space")) {
            if (sscanf(line, "%lx..%lx", &a, &b) != 2) { if (sscanf(line, "%lx", &a) != 1) a = N_CP; b = a; }
            if (a > b || b >= N_CP) { fprintf(stderr, "gen-unicode: %s: bad line '%s'\n", path, line); free(data); return NULL; }
            for (cp = a; cp <= b; cp++) cls[cp] = 1;
        }
        line = eol ? eol + 1 : line + strlen(line);
    }
    free(data);
    for (cp = 0; cp < N_CP; cp++) if (cp == 0 || cls[cp] != cls[cp - 1]) n_runs++;
    cap = 4096 + (size_t)n_runs * 12 + 128 * 4;
    if (!(out = (char *)malloc(cap))) return NULL;
    o = out;
    o += sprintf(o, "%s\n/* From UnicodeData.txt and PropList.txt of Unicode %s. Character classes: */\n", BEGIN_LINE, version);
    o += sprintf(o, "enum {\n");
    for (k = 0; k < 10; k++) o += sprintf(o, "    %s = %d,%*s/* %s */\n", class_name[k], k, (int)(18 - strlen(class_name[k])), "", class_doc[k]);
    o += sprintf(o, "    SRT__UC_COUNT\n};\n");
    o += sprintf(o, "/* class of each ASCII character */\nstatic const unsigned char srt__uc_ascii[128] = {\n");
    for (cp = 0; cp < 128; cp++) o += sprintf(o, "%s%d%s", cp % 32 == 0 ? "    " : "", cls[cp], cp == 127 ? "\n" : cp % 32 == 31 ? ",\n" : ",");
    o += sprintf(o, "};\n/* runs of equal class: (first code point << 4) | class, in code point order; a run lasts up to\n"
                    "   the next entry (the last one up to U+10FFFF) */\n");
    o += sprintf(o, "#define SRT__UC_RUNS %d\nstatic const uint32_t srt__uc_runs[SRT__UC_RUNS] = {\n", n_runs);
    for (cp = 0, k = 0; cp < N_CP; cp++) {
        if (cp != 0 && cls[cp] == cls[cp - 1]) continue;
        o += sprintf(o, "%s0x%07lx%s", k % 10 == 0 ? "    " : " ", (cp << 4) | cls[cp], k == n_runs - 1 ? "\n" : k % 10 == 9 ? ",\n" : ",");
        k++;
    }
    o += sprintf(o, "};\n%s\n", END_LINE);
    return out;
}

/* Finds the block (from the BEGIN line through the END line and its newline) in text. */
static int find_block(const char *text, const char **b, const char **e) {
    const char *p = strstr(text, BEGIN_LINE), *q = p ? strstr(p, END_LINE) : NULL;
    if (!p || !q) return 0;
    q += strlen(END_LINE);
    if (*q == '\n') q++;
    *b = p; *e = q;
    return 1;
}

int main(int argc, char **argv) {
    const char *mode = NULL, *file = NULL, *dir = "/usr/share/unicode", *b, *e;
    char *block, *text;
    int i;
    for (i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--check") || !strcmp(argv[i], "--write")) && i + 1 < argc) { mode = argv[i]; file = argv[++i]; }
        else if (argv[i][0] == '-') { fprintf(stderr, "usage: gen-unicode [--check FILE | --write FILE] [DIR]\n"); return 2; }
        else dir = argv[i];
    }
    if (!(block = generate(dir))) return 2;
    if (!mode) { fputs(block, stdout); free(block); return 0; }
    if (!(text = read_file(file)) || !find_block(text, &b, &e)) {
        fprintf(stderr, "gen-unicode: %s: %s\n", file, text ? "no generated block (BEGIN/END lines)" : "cannot read");
        free(text); free(block);
        return 2;
    }
    if (!strcmp(mode, "--check")) {
        size_t n = (size_t)(e - b), j, line = 1;
        int same = strlen(block) == n && memcmp(block, b, n) == 0;
        if (!same) {
            for (j = 0; j < n && block[j] && block[j] == b[j]; j++) if (b[j] == '\n') line++;
            fprintf(stderr, "gen-unicode: %s: the generated block differs from %s at its line %lu\n", file, dir, (unsigned long)line);
        }
        free(text); free(block);
        return same ? 0 : 1;
    } else {
        FILE *f = fopen(file, "wb");
        int ok = f && fwrite(text, 1, (size_t)(b - text), f) == (size_t)(b - text) && fputs(block, f) >= 0 && fputs(e, f) >= 0;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok) fprintf(stderr, "gen-unicode: cannot write %s\n", file);
        free(text); free(block);
        return ok ? 0 : 2;
    }
}
