/* ui-make-chat - writes a conversation file (srt_session_save_chat) with the given messages and no
   tokens, for tests/test_ui.sh: a conversation whose last reply calls tools, which stories260K
   would never write itself. Opened in a chat, its text is fed again from the start.

   ui-make-chat MODEL.srt OUT ROLE CONTENT [ROLE CONTENT ...]     (\n in CONTENT is a new line) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sparsert.h"

static char *unescape(const char *s) {
    char *d = (char *)malloc(strlen(s) + 1), *o = d;
    if (!d) return NULL;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == 'n') { *o++ = '\n'; s++; }
        else *o++ = *s;
    }
    *o = 0;
    return d;
}

int main(int argc, char **argv) {
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_session_desc sd;
    srt_chat_message msgs[16];
    int n = 0, i, rc = 1;
    if (argc < 5 || (argc - 3) % 2 != 0 || (argc - 3) / 2 > 16) { fprintf(stderr, "usage: ui-make-chat MODEL.srt OUT ROLE CONTENT [ROLE CONTENT ...]\n"); return 2; }
    for (i = 3; i + 1 < argc; i += 2, n++) {
        msgs[n].role = argv[i];
        if (!(msgs[n].content = unescape(argv[i + 1]))) return 1;
    }
    memset(&sd, 0, sizeof sd);
    if (srt_model_load(argv[1], NULL, &m) != SRT_OK || srt_session_create(m, &sd, &s) != SRT_OK || srt_session_save_chat(s, argv[2], msgs, n) != SRT_OK)
        fprintf(stderr, "ui-make-chat: %s\n", srt_last_error());
    else rc = 0;
    for (i = 0; i < n; i++) free((void *)msgs[i].content);
    srt_session_destroy(s);
    srt_model_free(m);
    return rc;
}
