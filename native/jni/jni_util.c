/* jni_util.c - library load and unload, exceptions, handle release (see jni_util.h). */
#include <stdio.h>

#include "jni_util.h"
#include "scbf/hotcache.h"
#include "scbf/membership.h"
#include "scbf/routeset.h"
#include "scbf/scbf.h"
#include "scbf/sscbf.h"

jclass cls_iae, cls_ise, cls_oom, cls_corrupt;

/* ---------- exceptions ---------- */

void throw_msg(JNIEnv *env, jclass cls, const char *what, const char *detail) {
    char msg[320];
    snprintf(msg, sizeof msg, "%s: %s", what, detail);
    (*env)->ThrowNew(env, cls, msg);
}

void throw_status(JNIEnv *env, int status, const char *what) {
    jclass cls;
    switch (status) {
    case SCBF_E_NOMEM: cls = cls_oom; break;
    case SCBF_E_TRUNCATED:
    case SCBF_E_BAD_MAGIC:
    case SCBF_E_BAD_VERSION:
    case SCBF_E_CHECKSUM:
    case SCBF_E_CORRUPT: cls = cls_corrupt; break;
    case SCBF_E_INVALID_ARG:
    case SCBF_E_PARAM_MISMATCH:
    case SCBF_E_TOO_LARGE: cls = cls_iae; break;
    default: cls = cls_ise; break;
    }
    char detail[160];
    snprintf(detail, sizeof detail, "%s (scbf status %d)", scbf_strerror(status), status);
    throw_msg(env, cls, what, detail);
}

static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (!local) return NULL;
    jclass global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    /* FindClass here resolves through the class loader loading this library. */
    if (!(cls_iae = global_class(env, "java/lang/IllegalArgumentException")) ||
        !(cls_ise = global_class(env, "java/lang/IllegalStateException")) ||
        !(cls_oom = global_class(env, "java/lang/OutOfMemoryError")) ||
        !(cls_corrupt = global_class(env, "io/scbf/CorruptSnapshotException")))
        return JNI_ERR;
    if (cache_glue_load() != 0) return JNI_ERR;
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return;
    (*env)->DeleteGlobalRef(env, cls_iae);
    (*env)->DeleteGlobalRef(env, cls_ise);
    (*env)->DeleteGlobalRef(env, cls_oom);
    (*env)->DeleteGlobalRef(env, cls_corrupt);
    cache_glue_unload();
}

JNIEXPORT jint JNICALL Java_io_scbf_NativeBridge_abiVersion(JNIEnv *env, jclass cls) {
    return ABI_VERSION;
}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_emptyCall(JNIEnv *env, jclass cls) {}

JNIEXPORT void JNICALL Java_io_scbf_NativeBridge_free(JNIEnv *env, jclass cls, jint kind,
                                                      jlong handle) {
    if (kind == KIND_SCBF)
        scbf_free(handle_ptr(handle));
    else if (kind == KIND_SSCBF)
        sscbf_free(handle_ptr(handle));
    else if (kind == KIND_MEMBER)
        scbf_member_free(handle_ptr(handle));
    else if (kind == KIND_ROUTES)
        scbf_routeset_free(handle_ptr(handle));
    else
        hotcache_free(handle_ptr(handle));
}
