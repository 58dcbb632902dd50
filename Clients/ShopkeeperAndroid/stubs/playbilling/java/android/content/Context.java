// Compile-time stub of an Android SDK class (see stubs/playbilling/README.md); never shipped.
package android.content;

public abstract class Context {}
