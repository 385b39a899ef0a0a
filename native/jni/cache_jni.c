/* cache_jni.c - JNI glue of HotscoreCache. */
#include <pthread.h>
#include <stdlib.h>

#include "jni_util.h"
#include "scbf/hotcache.h"
#include "scbf/scbf.h"

#define VALUE_STACK 4096 /* cache values up to this size are read through the stack */

static pthread_key_t value_buf_key; /* per-thread buffer for large cache values */

int cache_glue_load(void) { return pthread_key_create(&value_buf_key, free); }

void cache_glue_unload(void) { pthread_key_delete(value_buf_key); }

/* ---------- HotscoreCache ---------- */

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_cacheCreate(JNIEnv *env, jclass cls, jint policy,
                                                              jlong capacity_bytes,
                                                              jlong max_entries, jint period,
                                                              jdouble decay, jlong period_nanos,
                                                              jlong ghost_entries) {
    hotcache_config_t c;
    hotcache_policy p = policy == NB(POLICY_LRU)     ? HOTCACHE_LRU
                        : policy == NB(POLICY_PAPER) ? HOTCACHE_PAPER
                                                     : HOTCACHE_HOTSCORE;
    hotcache_config_default(&c, p, (uint64_t)capacity_bytes);
    if (policy == NB(POLICY_ADAPTIVE)) c.chooser = 0;
    if (max_entries > 0) c.max_entries = (uint64_t)max_entries;
    if (period > 0) c.period = (uint32_t)period;
    if (decay > 0) c.decay = decay;
    if (period_nanos >= 0) c.period_ns = (uint64_t)period_nanos;
    if (ghost_entries > 0) c.ghost_entries = (uint64_t)ghost_entries;
    hotcache_t *h = NULL;
    int rc = hotcache_create(&c, &h);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "HotscoreCache.build");
        return 0;
    }
    return ptr_handle(h);
}

/* This thread's buffer for cache values larger than VALUE_STACK; grows, freed at thread exit. */
typedef struct {
    size_t cap;
    uint8_t bytes[];
} value_buf_t;

static value_buf_t *value_buf(size_t need) {
    value_buf_t *vb = pthread_getspecific(value_buf_key);
    if (vb && vb->cap >= need) return vb;
    size_t cap = vb && vb->cap * 2 > need ? vb->cap * 2 : need;
    value_buf_t *grown = realloc(vb, sizeof *grown + cap);
    if (!grown) return NULL;
    grown->cap = cap;
    pthread_setspecific(value_buf_key, grown);
    return grown;
}

JNIEXPORT jbyteArray JNICALL Java_io_scbf_NativeBridge_cacheGet(JNIEnv *env, jclass cls,
                                                                jlong handle, jbyteArray key,
                                                                jint off, jint len) {
    uint8_t stack[VALUE_STACK];
    value_buf_t *vb = pthread_getspecific(value_buf_key);
    uint8_t *buf = vb ? vb->bytes : stack;
    size_t cap = vb ? vb->cap : sizeof stack;
    size_t vlen = 0;
    int rc;
    for (;;) {
        uint8_t *k = pin(env, key);
        if (!k) return NULL;
        rc = hotcache_get(handle_ptr(handle), k + off, (size_t)len, buf, cap, &vlen);
        unpin(env, key, k);
        if (rc != SCBF_E_BUFFER_TOO_SMALL) break;
        /* Larger than any value this thread has read: grow and look up again (the retry counts
         * as a second visit; it happens once per growth of the thread's buffer). */
        if (!(vb = value_buf(vlen))) {
            throw_status(env, SCBF_E_NOMEM, "HotscoreCache.get");
            return NULL;
        }
        buf = vb->bytes;
        cap = vb->cap;
    }
    if (rc == SCBF_E_NOT_FOUND) return NULL;
    if (rc != SCBF_OK) {
        throw_status(env, rc, "HotscoreCache.get");
        return NULL;
    }
    jbyteArray out = (*env)->NewByteArray(env, (jsize)vlen);
    if (out) (*env)->SetByteArrayRegion(env, out, 0, (jsize)vlen, (const jbyte *)buf);
    return out;
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_cachePut(JNIEnv *env, jclass cls, jlong handle,
                                                              jbyteArray key, jint koff, jint klen,
                                                              jbyteArray value, jint voff,
                                                              jint vlen) {
    uint8_t *k = pin(env, key);
    uint8_t *v = k ? pin(env, value) : NULL;
    if (!v) {
        if (k) unpin(env, key, k);
        return JNI_FALSE;
    }
    int admitted = 0;
    int rc =
        hotcache_put(handle_ptr(handle), k + koff, (size_t)klen, v + voff, (size_t)vlen, &admitted);
    unpin(env, value, v);
    unpin(env, key, k);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "HotscoreCache.put");
        return JNI_FALSE;
    }
    return admitted ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_cacheInvalidate(JNIEnv *env, jclass cls,
                                                                     jlong handle, jbyteArray key,
                                                                     jint off, jint len) {
    uint8_t *k = pin(env, key);
    if (!k) return JNI_FALSE;
    int rc = hotcache_invalidate(handle_ptr(handle), k + off, (size_t)len);
    unpin(env, key, k);
    if (rc == SCBF_OK) return JNI_TRUE;
    if (rc != SCBF_E_NOT_FOUND) throw_status(env, rc, "HotscoreCache.invalidate");
    return JNI_FALSE;
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_cacheClear(JNIEnv *env, jclass cls, jlong handle) {
    hotcache_clear(handle_ptr(handle));
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_cacheStats(JNIEnv *env, jclass cls, jlong handle,
                                                            jlongArray out) {
    hotcache_stats_t st;
    int rc = hotcache_stats(handle_ptr(handle), &st);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "HotscoreCache.stats");
        return;
    }
    jlong l[NB(CACHE_LONGS)];
    l[NB(CACHE_L_HITS)] = (jlong)st.hits;
    l[NB(CACHE_L_MISSES)] = (jlong)st.misses;
    l[NB(CACHE_L_ADMISSIONS)] = (jlong)st.admissions;
    l[NB(CACHE_L_REJECTIONS)] = (jlong)st.rejections;
    l[NB(CACHE_L_EVICTIONS)] = (jlong)st.evictions;
    l[NB(CACHE_L_INVALIDATIONS)] = (jlong)st.invalidations;
    l[NB(CACHE_L_ENTRIES)] = (jlong)st.entries;
    l[NB(CACHE_L_GHOSTS)] = (jlong)st.ghosts;
    l[NB(CACHE_L_BYTES_USED)] = (jlong)st.bytes_used;
    l[NB(CACHE_L_CAPACITY_BYTES)] = (jlong)st.capacity_bytes;
    l[NB(CACHE_L_PERIODS)] = (jlong)st.periods;
    (*env)->SetLongArrayRegion(env, out, 0, NB(CACHE_LONGS), l);
}
