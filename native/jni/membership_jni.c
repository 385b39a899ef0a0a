/* membership_jni.c - JNI glue of MembershipFilter (routing bitmaps) and MembershipRouteSet. */
#include <stdlib.h>

#include "jni_util.h"
#include "scbf/membership.h"
#include "scbf/routeset.h"
#include "scbf/scbf.h"
#include "scbf/sscbf.h"

/* ---------- routing bitmaps ---------- */

static jbyteArray new_bytes(JNIEnv *env, const uint8_t *buf, size_t len, const char *what) {
    if (len > (size_t)INT32_MAX - 16) {
        throw_msg(env, cls_iae, what, "larger than a Java array");
        return NULL;
    }
    jbyteArray out = (*env)->NewByteArray(env, (jsize)len);
    if (out) (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte *)buf);
    return out;
}

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_memberOf(JNIEnv *env, jclass cls, jlong sscbf) {
    scbf_member_t *m = NULL;
    int rc = sscbf_member_of(handle_ptr(sscbf), &m);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "MembershipFilter.of");
        return 0;
    }
    return ptr_handle(m);
}

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_memberRead(JNIEnv *env, jclass cls,
                                                             jbyteArray bytes) {
    jsize len = (*env)->GetArrayLength(env, bytes);
    uint8_t *p = pin(env, bytes);
    if (!p) return 0;
    scbf_member_t *m = NULL;
    int rc = scbf_member_read(p, (size_t)len, &m);
    unpin(env, bytes, p);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "MembershipFilter.fromByteArray");
        return 0;
    }
    return ptr_handle(m);
}

JNIEXPORT jbyteArray JNICALL Java_io_scbf_NativeBridge_memberBytes(JNIEnv *env, jclass cls,
                                                                   jlong handle) {
    size_t len = 0;
    const uint8_t *p = scbf_member_bytes(handle_ptr(handle), &len);
    return new_bytes(env, p, len, "MembershipFilter.toByteArray");
}

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_memberSize(JNIEnv *env, jclass cls,
                                                             jlong handle) {
    size_t len = 0;
    scbf_member_bytes(handle_ptr(handle), &len);
    return (jlong)len;
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_memberContains(JNIEnv *env, jclass cls,
                                                                    jlong handle, jbyteArray key,
                                                                    jint off, jint len) {
    uint8_t *bytes = pin(env, key);
    if (!bytes) return JNI_FALSE;
    int rc = scbf_member_contains(handle_ptr(handle), bytes + off, (size_t)len);
    unpin(env, key, bytes);
    if (rc < 0) throw_status(env, rc, "MembershipFilter.mightContain");
    return rc == 1 ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jbyteArray JNICALL Java_io_scbf_NativeBridge_memberDelta(JNIEnv *env, jclass cls,
                                                                   jlong from, jlong to) {
    const char *what = "MembershipFilter.deltaFrom";
    size_t need = 0;
    int rc = scbf_member_delta(handle_ptr(from), handle_ptr(to), NULL, 0, &need);
    if (rc == SCBF_E_PARAM_MISMATCH) return NULL;
    uint8_t *buf = malloc(need ? need : 1);
    if (!buf) {
        throw_status(env, SCBF_E_NOMEM, what);
        return NULL;
    }
    rc = scbf_member_delta(handle_ptr(from), handle_ptr(to), buf, need, &need);
    jbyteArray out = NULL;
    if (rc != SCBF_OK)
        throw_status(env, rc, what);
    else
        out = new_bytes(env, buf, need, what);
    free(buf);
    return out;
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_memberApply(JNIEnv *env, jclass cls,
                                                                 jlong handle, jbyteArray delta) {
    jsize len = (*env)->GetArrayLength(env, delta);
    uint8_t *bytes = pin(env, delta);
    if (!bytes) return JNI_FALSE;
    int rc = scbf_member_apply(handle_ptr(handle), bytes, (size_t)len);
    unpin(env, delta, bytes);
    if (rc == SCBF_E_PARAM_MISMATCH) return JNI_FALSE;
    /* A malformed delta is a corrupt message (CorruptSnapshotException), never a crash. */
    if (rc != SCBF_OK)
        throw_status(env, rc == SCBF_E_INVALID_ARG ? SCBF_E_CORRUPT : rc,
                     "MembershipFilter.applyDelta");
    return rc == SCBF_OK ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jdouble JNICALL Java_io_scbf_NativeBridge_memberStats(JNIEnv *env, jclass cls,
                                                                jlong handle, jlongArray longs) {
    scbf_member_stats_t st;
    int rc = scbf_member_stats(handle_ptr(handle), &st);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "MembershipFilter.stats");
        return 0;
    }
    jlong l[NB(MEMBER_LONGS)];
    l[NB(MEMBER_L_FILTERS)] = st.filters;
    l[NB(MEMBER_L_BITS)] = (jlong)st.bits;
    l[NB(MEMBER_L_SET_BITS)] = (jlong)st.set_bits;
    l[NB(MEMBER_L_BYTES)] = (jlong)st.bytes;
    (*env)->SetLongArrayRegion(env, longs, 0, NB(MEMBER_LONGS), l);
    return st.estimated_fpr;
}

/* ---------- route sets ---------- */

JNIEXPORT jlong JNICALL Java_io_scbf_NativeBridge_routesetNew(JNIEnv *env, jclass cls) {
    scbf_routeset_t *rs = NULL;
    int rc = scbf_routeset_new(&rs);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "MembershipRouteSet.create");
        return 0;
    }
    return ptr_handle(rs);
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_routesetSet(JNIEnv *env, jclass cls, jlong handle,
                                                             jint slot, jlong prev, jlong next) {
    int rc = scbf_routeset_set(handle_ptr(handle), (uint32_t)slot, prev ? handle_ptr(prev) : NULL,
                               handle_ptr(next));
    if (rc != SCBF_OK) throw_status(env, rc, "MembershipRouteSet.set");
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_routesetClear(JNIEnv *env, jclass cls,
                                                               jlong handle, jint slot) {
    int rc = scbf_routeset_clear(handle_ptr(handle), (uint32_t)slot);
    if (rc != SCBF_OK) throw_status(env, rc, "MembershipRouteSet.clear");
}

JNIEXPORT jint JNICALL Java_io_scbf_NativeBridge_routesetSlots(JNIEnv *env, jclass cls,
                                                               jlong handle) {
    return (jint)scbf_routeset_slots(handle_ptr(handle));
}

JNIEXPORT jboolean JNICALL Java_io_scbf_NativeBridge_routesetQuery(JNIEnv *env, jclass cls,
                                                                   jlong handle, jbyteArray key,
                                                                   jint off, jint len,
                                                                   jlongArray out) {
    jsize words = (*env)->GetArrayLength(env, out);
    uint8_t *bytes = pin(env, key);
    if (!bytes) return JNI_FALSE;
    jlong *bits = pin(env, out);
    if (!bits) {
        unpin(env, key, bytes);
        return JNI_FALSE;
    }
    int rc = scbf_routeset_query(handle_ptr(handle), bytes + off, (size_t)len, (uint64_t *)bits,
                                 (size_t)words);
    (*env)->ReleasePrimitiveArrayCritical(env, out, bits, 0);
    unpin(env, key, bytes);
    if (rc == SCBF_E_BUFFER_TOO_SMALL) return JNI_FALSE;
    if (rc != SCBF_OK) throw_status(env, rc, "MembershipRouteSet.query");
    return rc == SCBF_OK ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_routesetStats(JNIEnv *env, jclass cls,
                                                               jlong handle, jlongArray longs) {
    scbf_routeset_stats_t st;
    int rc = scbf_routeset_stats(handle_ptr(handle), &st);
    if (rc != SCBF_OK) {
        throw_status(env, rc, "MembershipRouteSet.stats");
        return;
    }
    jlong l[NB(ROUTESET_LONGS)];
    l[NB(ROUTESET_L_SLOTS)] = st.slots;
    l[NB(ROUTESET_L_SHAPES)] = st.shapes;
    l[NB(ROUTESET_L_LANES)] = (jlong)st.lanes;
    l[NB(ROUTESET_L_PAGES)] = (jlong)st.pages;
    l[NB(ROUTESET_L_BYTES)] = (jlong)st.bytes;
    (*env)->SetLongArrayRegion(env, longs, 0, NB(ROUTESET_LONGS), l);
}
