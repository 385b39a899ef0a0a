/* filter_jni.c - JNI glue of SplitCountingBloomFilter and ScalableSplitCountingBloomFilter. */
#include <stdlib.h>

#include "jni_util.h"
#include "scbf/scbf.h"
#include "scbf/sscbf.h"

#define SOURCE_CHUNK NB(SOURCE_CHUNK_KEYS)
#define BATCH_CHUNK  1024 /* keys per C batch call: their offsets are copied to the stack */

/* ---------- filters: key operations ---------- */

static const char *op_name(jint kind, jint op) {
    static const char *names[2][3] = {
        {"SplitCountingBloomFilter.add", "SplitCountingBloomFilter.mightContain",
         "SplitCountingBloomFilter.remove"},
        {"ScalableSplitCountingBloomFilter.add", "ScalableSplitCountingBloomFilter.mightContain",
         "ScalableSplitCountingBloomFilter.remove"}};
    return names[kind == KIND_SSCBF][op];
}

/* add -> 0; contains -> 1/0; remove -> 1 removed / 0 absent; < 0 error status. */
static int key_op(jint kind, jint op, jlong handle, const uint8_t *key, size_t len) {
    int rc;
    if (kind == KIND_SCBF) {
        scbf_t *f = handle_ptr(handle);
        if (op == OP_ADD) return scbf_add(f, key, len);
        if (op == OP_CONTAINS) return scbf_contains(f, key, len);
        rc = scbf_remove(f, key, len);
    } else {
        sscbf_t *s = handle_ptr(handle);
        if (op == OP_ADD) return sscbf_add(s, key, len);
        if (op == OP_CONTAINS) return sscbf_contains(s, key, len);
        rc = sscbf_remove(s, key, len);
    }
    return rc == SCBF_OK ? 1 : rc == SCBF_E_NOT_FOUND ? 0 : rc;
}

static int batch_op(jint kind, jint op, jlong handle, const uint8_t *data, const uint32_t *offsets,
                    size_t n, uint8_t *results) {
    if (kind == KIND_SCBF) {
        scbf_t *f = handle_ptr(handle);
        if (op == OP_ADD) return scbf_add_batch(f, data, offsets, n);
        if (op == OP_CONTAINS) return scbf_contains_batch(f, data, offsets, n, results);
        return scbf_remove_batch(f, data, offsets, n, results);
    }
    sscbf_t *s = handle_ptr(handle);
    if (op == OP_ADD) return sscbf_add_batch(s, data, offsets, n);
    if (op == OP_CONTAINS) return sscbf_contains_batch(s, data, offsets, n, results);
    return sscbf_remove_batch(s, data, offsets, n, results);
}

static jint finish_key_op(JNIEnv *env, jint kind, jint op, int r) {
    if (r < 0) {
        throw_status(env, r, op_name(kind, op));
        return 0;
    }
    return r;
}

JNIEXPORT jint JNICALL Java_io_scbf_NativeBridge_keyOp(JNIEnv *env, jclass cls, jint kind, jint op,
                                                       jlong handle, jbyteArray key, jint off,
                                                       jint len) {
    uint8_t *k = pin(env, key);
    if (!k) return 0;
    int r = key_op(kind, op, handle, k + off, (size_t)len);
    unpin(env, key, k);
    return finish_key_op(env, kind, op, r);
}

JNIEXPORT jint JNICALL Java_io_scbf_NativeBridge_keyOpDirect(JNIEnv *env, jclass cls, jint kind,
                                                             jint op, jlong handle, jobject key,
                                                             jint off, jint len) {
    const uint8_t *base = (*env)->GetDirectBufferAddress(env, key);
    jlong cap = (*env)->GetDirectBufferCapacity(env, key);
    if (!base || off < 0 || len < 0 || (jlong)off + len > cap) {
        throw_msg(env, cls_iae, op_name(kind, op), "not a direct buffer, or range outside it");
        return 0;
    }
    return finish_key_op(env, kind, op, key_op(kind, op, handle, base + off, (size_t)len));
}

/* Copies offsets[start .. start+c] and checks them against the data length. */
static int load_offsets(JNIEnv *env, jintArray offsets, jint start, jint c, jsize data_len,
                        uint32_t *out) {
    (*env)->GetIntArrayRegion(env, offsets, start, c + 1, (jint *)out);
    if ((*env)->ExceptionCheck(env)) return -1;
    for (jint i = 0; i < c; i++)
        if (out[i] > out[i + 1]) return -1;
    return out[c] <= (uint32_t)data_len ? 0 : -1;
}

JNIEXPORT jint JNICALL Java_io_scbf_NativeBridge_batchOp(JNIEnv *env, jclass cls, jint kind,
                                                         jint op, jlong handle, jbyteArray data,
                                                         jintArray offsets, jint n,
                                                         jbooleanArray results) {
    const char *what = op_name(kind, op);
    jsize data_len = (*env)->GetArrayLength(env, data);
    if (n < 0 || (*env)->GetArrayLength(env, offsets) < (jlong)n + 1 ||
        (results && (*env)->GetArrayLength(env, results) < n)) {
        throw_msg(env, cls_iae, what, "batch arrays shorter than its key count");
        return 0;
    }
    uint32_t offs[BATCH_CHUNK + 1];
    uint8_t scratch[BATCH_CHUNK];
    jint count = 0;
    for (jint start = 0; start < n; start += BATCH_CHUNK) {
        jint c = n - start < BATCH_CHUNK ? n - start : BATCH_CHUNK;
        if (load_offsets(env, offsets, start, c, data_len, offs) != 0) {
            if (!(*env)->ExceptionCheck(env))
                throw_msg(env, cls_iae, what,
                          "batch offsets decreasing or beyond the data (KeyBatch modified during "
                          "the call?)");
            return count;
        }
        uint8_t *d = pin(env, data);
        uint8_t *res = d && results ? pin(env, results) : NULL;
        if (!d || (results && !res)) {
            if (d) unpin(env, data, d);
            return count;
        }
        uint8_t *out = res ? res + start : op == OP_ADD ? NULL : scratch;
        int rc = batch_op(kind, op, handle, d, offs, (size_t)c, out);
        if (rc == SCBF_OK && out) {
            for (jint i = 0; i < c; i++) {
                out[i] = out[i] != 0; /* Java booleans must be exactly 0 or 1 */
                count += out[i];
            }
        }
        if (res) (*env)->ReleasePrimitiveArrayCritical(env, results, res, 0); /* copy back */
        unpin(env, data, d);
        if (rc != SCBF_OK) {
            throw_status(env, rc, what);
            return count;
        }
    }
    return count;
}

/* ---------- filters: whole-filter operations ---------- */

JNIEXPORT jbyteArray JNICALL Java_io_scbf_NativeBridge_snapshot(JNIEnv *env, jclass cls, jint kind,
                                                                jlong handle) {
    const char *what = kind == KIND_SCBF ? "SplitCountingBloomFilter.toByteArray"
                                         : "ScalableSplitCountingBloomFilter.toByteArray";
    /* A scalable filter may grow between sizing and writing: then size again. */
    for (int attempt = 0; attempt < 16; attempt++) {
        size_t size = kind == KIND_SCBF ? scbf_snapshot_size(handle_ptr(handle))
                                        : sscbf_snapshot_size(handle_ptr(handle));
        if (size > (size_t)INT32_MAX - 16) {
            throw_msg(env, cls_iae, what, "snapshot larger than a Java array");
            return NULL;
        }
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf) {
            throw_status(env, SCBF_E_NOMEM, what);
            return NULL;
        }
        size_t written = 0;
        int rc = kind == KIND_SCBF ? scbf_snapshot_write(handle_ptr(handle), buf, size, &written)
                                   : sscbf_snapshot_write(handle_ptr(handle), buf, size, &written);
        if (rc == SCBF_E_BUFFER_TOO_SMALL) {
            free(buf);
            continue;
        }
        jbyteArray out = NULL;
        if (rc != SCBF_OK) {
            throw_status(env, rc, what);
        } else if ((out = (*env)->NewByteArray(env, (jsize)written)) != NULL) {
            (*env)->SetByteArrayRegion(env, out, 0, (jsize)written, (const jbyte *)buf);
        }
        free(buf);
        return out;
    }
    throw_msg(env, cls_ise, what, "the filter kept growing while being written");
    return NULL;
}

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_restore(JNIEnv *env, jclass cls, jint kind,
                                                          jbyteArray snapshot) {
    const char *what = kind == KIND_SCBF ? "SplitCountingBloomFilter.fromByteArray"
                                         : "ScalableSplitCountingBloomFilter.fromByteArray";
    jsize len = (*env)->GetArrayLength(env, snapshot);
    uint8_t *bytes = pin(env, snapshot);
    if (!bytes) return 0;
    void *out = NULL;
    int rc = kind == KIND_SCBF ? scbf_snapshot_read(bytes, (size_t)len, (scbf_t **)&out)
                               : sscbf_snapshot_read(bytes, (size_t)len, (sscbf_t **)&out);
    unpin(env, snapshot, bytes);
    if (rc != SCBF_OK) {
        throw_status(env, rc, what);
        return 0;
    }
    return ptr_handle(out);
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_merge(JNIEnv *env, jclass cls, jint kind,
                                                       jlong dst, jlong src) {
    int rc = kind == KIND_SCBF ? scbf_merge(handle_ptr(dst), handle_ptr(src))
                               : sscbf_merge(handle_ptr(dst), handle_ptr(src));
    if (rc != SCBF_OK)
        throw_status(env, rc,
                     kind == KIND_SCBF ? "SplitCountingBloomFilter.merge"
                                       : "ScalableSplitCountingBloomFilter.merge");
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_clear(JNIEnv *env, jclass cls, jint kind,
                                                       jlong handle) {
    if (kind == KIND_SCBF)
        scbf_clear(handle_ptr(handle));
    else
        sscbf_clear(handle_ptr(handle));
}

/* ---------- SplitCountingBloomFilter ---------- */

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_scbfCreate(JNIEnv *env, jclass cls, jlong size,
                                                             jboolean size_is_positions,
                                                             jdouble fpp, jint counter_bits,
                                                             jlong seed) {
    const char *what = "SplitCountingBloomFilter.create";
    scbf_params_t p;
    int rc = size_is_positions ? scbf_params_from_positions((uint64_t)size, fpp, &p)
                               : scbf_params_from_capacity((uint64_t)size, fpp, &p);
    if (rc != SCBF_OK) {
        throw_status(env, rc, what);
        return 0;
    }
    p.counter_bits = (uint32_t)counter_bits;
    p.seed = (uint64_t)seed;
    scbf_t *f = NULL;
    if ((rc = scbf_create(&p, &f)) != SCBF_OK) {
        throw_status(env, rc, what);
        return 0;
    }
    return ptr_handle(f);
}

JNIEXPORT jdoubleArray JNICALL Java_io_scbf_NativeBridge_scbfStats(JNIEnv *env, jclass cls,
                                                                   jlong handle, jlongArray longs) {
    const scbf_t *f = handle_ptr(handle);
    const scbf_params_t *p = scbf_params(f);
    scbf_stats_t st;
    int rc = scbf_stats(f, &st);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "SplitCountingBloomFilter.stats");
        return NULL;
    }
    jlong l[NB(SCBF_LONGS)];
    l[NB(SCBF_L_POSITIONS)] = (jlong)st.positions;
    l[NB(SCBF_L_M)] = (jlong)st.m;
    l[NB(SCBF_L_CAPACITY)] = (jlong)st.capacity;
    l[NB(SCBF_L_K)] = (jlong)st.k;
    l[NB(SCBF_L_COUNTER_BITS)] = (jlong)st.counter_bits;
    l[NB(SCBF_L_NONZERO)] = (jlong)st.nonzero;
    l[NB(SCBF_L_SATURATED)] = (jlong)st.saturated;
    l[NB(SCBF_L_BYTES)] = (jlong)st.bytes;
    l[NB(SCBF_L_SEED)] = (jlong)p->seed;
    (*env)->SetLongArrayRegion(env, longs, 0, NB(SCBF_LONGS), l);
    const size_t nd = NB(SCBF_D_SLICE_FILLS) + (size_t)st.k;
    double *d = malloc(nd * sizeof *d);
    if (!d) {
        throw_status(env, SCBF_E_NOMEM, "SplitCountingBloomFilter.stats");
        return NULL;
    }
    d[NB(SCBF_D_TARGET_FPR)] = p->fpr;
    d[NB(SCBF_D_MAX_FILL)] = st.max_fill;
    d[NB(SCBF_D_ESTIMATED_FPR)] = st.estimated_fpr;
    rc = scbf_slice_fill(f, d + NB(SCBF_D_SLICE_FILLS), st.k);
    jdoubleArray out = NULL;
    if (rc != SCBF_OK)
        throw_status(env, rc, "SplitCountingBloomFilter.stats");
    else if ((out = (*env)->NewDoubleArray(env, (jsize)nd)) != NULL)
        (*env)->SetDoubleArrayRegion(env, out, 0, (jsize)nd, d);
    free(d);
    return out;
}

/* ---------- ScalableSplitCountingBloomFilter ---------- */

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_sscbfCreate(JNIEnv *env, jclass cls,
                                                              jlong initial_capacity, jdouble fpp,
                                                              jdouble tightening, jint growth,
                                                              jint counter_bits, jint max_filters,
                                                              jlong residue_threshold, jlong seed) {
    sscbf_config_t c;
    sscbf_config_default(&c, (uint64_t)initial_capacity, fpp);
    if (tightening > 0) c.tightening = tightening;
    if (growth > 0) c.growth = (uint32_t)growth;
    if (counter_bits > 0) c.counter_bits = (uint32_t)counter_bits;
    if (max_filters > 0) c.max_filters = (uint32_t)max_filters;
    if (residue_threshold >= 0) c.residue_threshold = (uint64_t)residue_threshold;
    c.seed = (uint64_t)seed;
    sscbf_t *s = NULL;
    int rc = sscbf_create(&c, &s);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "ScalableSplitCountingBloomFilter.create");
        return 0;
    }
    return ptr_handle(s);
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_sscbfStats(JNIEnv *env, jclass cls, jlong handle,
                                                            jlongArray longs,
                                                            jdoubleArray doubles) {
    sscbf_stats_t st;
    int rc = sscbf_stats(handle_ptr(handle), &st);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "ScalableSplitCountingBloomFilter.stats");
        return;
    }
    jlong l[NB(SSCBF_LONGS)];
    l[NB(SSCBF_L_FILTERS)] = (jlong)st.filters;
    l[NB(SSCBF_L_RESIDUE)] = (jlong)st.residue;
    l[NB(SSCBF_L_BYTES)] = (jlong)st.bytes;
    l[NB(SSCBF_L_POSITIONS)] = (jlong)st.positions;
    l[NB(SSCBF_L_SATURATED)] = (jlong)st.saturated;
    l[NB(SSCBF_L_ADDS)] = (jlong)st.adds;
    l[NB(SSCBF_L_REMOVES)] = (jlong)st.removes;
    jdouble d[NB(SSCBF_DOUBLES)];
    d[NB(SSCBF_D_DESIGN_FPR)] = st.design_fpr;
    d[NB(SSCBF_D_ESTIMATED_FPR)] = st.estimated_fpr;
    d[NB(SSCBF_D_NEWEST_FILL)] = st.newest_fill;
    (*env)->SetLongArrayRegion(env, longs, 0, NB(SSCBF_LONGS), l);
    (*env)->SetDoubleArrayRegion(env, doubles, 0, NB(SSCBF_DOUBLES), d);
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_sscbfNeedsCompaction(JNIEnv *env, jclass cls,
                                                                          jlong handle) {
    return sscbf_needs_compaction(handle_ptr(handle)) > 0;
}

/* Compaction key source: pulls chunks from io.scbf.KeySource.refill() into native memory. */
typedef struct {
    JNIEnv *env;
    jobject source;
    jmethodID refill;
    jfieldID data, offsets;
    uint32_t offs[SOURCE_CHUNK + 1];
    uint8_t *buf;
    size_t cap;
    jint n, i;
} key_source_t;

static int grow(uint8_t **buf, size_t *cap, size_t need) {
    uint8_t *p = realloc(*buf, need);
    if (!p) return 0;
    *buf = p;
    *cap = need;
    return 1;
}

/* Loads the next chunk; 1 loaded, 0 end, -1 failure (a Java exception may be pending). */
static int key_source_refill(key_source_t *ks) {
    JNIEnv *env = ks->env;
    jint n = (*env)->CallIntMethod(env, ks->source, ks->refill);
    if ((*env)->ExceptionCheck(env) || n < 0) return -1;
    if (n == 0) return 0;
    jbyteArray data = (*env)->GetObjectField(env, ks->source, ks->data);
    jintArray offsets = (*env)->GetObjectField(env, ks->source, ks->offsets);
    int rc = -1;
    if (n > SOURCE_CHUNK || !data || !offsets || (*env)->GetArrayLength(env, offsets) < n + 1 ||
        load_offsets(env, offsets, 0, n, (*env)->GetArrayLength(env, data), ks->offs) != 0) {
        if (!(*env)->ExceptionCheck(env))
            throw_msg(env, cls_ise, "ScalableSplitCountingBloomFilter.compact",
                      "inconsistent key chunk");
    } else if (ks->offs[n] > ks->cap && !grow(&ks->buf, &ks->cap, ks->offs[n])) {
        throw_status(env, SCBF_E_NOMEM, "ScalableSplitCountingBloomFilter.compact");
    } else {
        (*env)->GetByteArrayRegion(env, data, 0, (jsize)ks->offs[n], (jbyte *)ks->buf);
        ks->n = n;
        ks->i = 0;
        rc = (*env)->ExceptionCheck(env) ? -1 : 1;
    }
    /* The native frame lasts the whole compaction: free local references per chunk. */
    if (data) (*env)->DeleteLocalRef(env, data);
    if (offsets) (*env)->DeleteLocalRef(env, offsets);
    return rc;
}

static int key_source_next(void *ctx, const uint8_t **key, size_t *len) {
    key_source_t *ks = ctx;
    if (ks->i == ks->n) {
        int rc = key_source_refill(ks);
        if (rc <= 0) return rc;
    }
    *key = ks->buf + ks->offs[ks->i];
    *len = ks->offs[ks->i + 1] - ks->offs[ks->i];
    ks->i++;
    return 1;
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_sscbfCompact(JNIEnv *env, jclass cls,
                                                                  jlong handle, jlong expected_keys,
                                                                  jobject source) {
    key_source_t ks = {.env = env, .source = source};
    jclass source_class = (*env)->GetObjectClass(env, source);
    ks.refill = (*env)->GetMethodID(env, source_class, "refill", "()I");
    ks.data = ks.refill ? (*env)->GetFieldID(env, source_class, "data", "[B") : NULL;
    ks.offsets = ks.data ? (*env)->GetFieldID(env, source_class, "offsets", "[I") : NULL;
    (*env)->DeleteLocalRef(env, source_class);
    if (!ks.offsets) return JNI_FALSE; /* NoSuchMethodError/NoSuchFieldError pending */
    int rc = sscbf_compact(handle_ptr(handle), (uint64_t)expected_keys, key_source_next, &ks);
    free(ks.buf);
    if ((*env)->ExceptionCheck(env) || rc == SCBF_E_ITER) return JNI_FALSE;
    if (rc != SCBF_OK) {
        throw_status(env, rc, "ScalableSplitCountingBloomFilter.compact");
        return JNI_FALSE;
    }
    return JNI_TRUE;
}
