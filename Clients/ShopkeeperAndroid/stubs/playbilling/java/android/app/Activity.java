// Compile-time stub of an Android SDK class (see stubs/playbilling/README.md); never shipped.
package android.app;

public class Activity extends android.content.Context {}
