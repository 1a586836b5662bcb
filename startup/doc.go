// Package startup finds the phases of an Android app's cold start on the
// main thread of a method trace, from the framework methods every Android
// version calls, and measures each: its begin and end on the wall clock,
// its wall, thread-CPU and off-CPU time, and the five methods with the
// most exclusive time inside it.
//
// The main thread is the one speedscope shows first: the thread whose id
// is the process id the trace names (pid=), else the first thread named
// "main" (threads are in the order of their first event).
//
// The phases, in order ([Names]), and the method that marks each (class
// and method name; the overloads of a method are one method, and a call
// nested in a call of the same method is part of the outer one):
//
//	bind                android.app.ActivityThread.handleBindApplication
//	application-create  android.app.Instrumentation.callApplicationOnCreate
//	activity-create     android.app.Activity.performCreate
//	activity-start      android.app.Activity.performStart
//	activity-resume     android.app.Activity.performResume
//	first-frame         android.view.Choreographer.doFrame
//	fully-drawn         android.app.Activity.reportFullyDrawn
//
// Each of the first six is the first call of its method on the main
// thread, with two rules for an app that opens several activities: the
// launch phases (activity-create, activity-start, activity-resume,
// first-frame) are of the first launch, so each is the first call of its
// method that begins after the earlier launch phases have ended and
// before any later one began; and first-frame is the first doFrame that
// begins after activity-resume ended, so a trace without activity-resume
// has no first-frame. The methods of the same name in other classes
// (androidx.fragment.app.Fragment.performCreate, the app's own onCreate)
// do not count.
//
// fully-drawn is not one call but the whole startup as the app reports
// it: from the begin of the first phase the trace recorded (bind when it
// did) to the end of the first call of Activity.reportFullyDrawn, on the
// main thread or any other (apps call it from background threads too;
// then the end is on the wall clock, and the main thread's CPU time is
// read up to its last event before it). Its methods are those of every
// main-thread stack in that span.
//
// A phase's wall and CPU times are the end minus the begin on each clock;
// its off-CPU time is, as the off-CPU clock everywhere in atrace2, the
// sum over the phase's distinct call stacks of max(0, exclusive wall −
// exclusive CPU) (stacks.Node.OffCPU), so that it equals what top
// --clock offcpu shows for the phase's method called once. The top
// methods are ranked by exclusive time on the first clock (wall when the
// trace has it), ties by name.
//
// A phase the trace did not record says why (Phase.Reason):
//   - "began before tracing started": its method was already running
//     when tracing began. Runtimes say so in two ways: an old one writes
//     only the exit (an orphan exit; the converter begins the frame at
//     the trace start, flagged Synthetic), ART writes an enter for every
//     frame on the stack at the thread's first record, all at that
//     record's times. So a frame begun at the main thread's first times,
//     before any frame of it ended, counts as running before tracing
//     began: the main thread exists from the process's start, long before
//     any tracing, so its first records are never a call just made. (On
//     a trace with the thread-CPU clock only, whose main thread may well
//     begin a call at CPU time 0, only the orphan exit counts.);
//   - "did not end before tracing stopped": it was still running at the
//     trace end;
//   - "no phase recorded before it" (fully-drawn only);
//   - "not in the trace" otherwise.
//
// A trace with one clock gives what that clock can: without the wall
// clock there is no begin, end, wall or off-CPU time, without the
// thread-CPU clock no CPU or off-CPU time (Report.Missing lists them).
//
// What the real traces show (the traces of docs/formats.md §17; the
// Android versions are read from the signatures and accessor names, as
// the traces do not name them). None starts before the app's process did,
// so none records bind or application-create, and none calls
// reportFullyDrawn:
//   - the launch goes through ActivityThread.handleLaunchActivity →
//     performLaunchActivity → Instrumentation.callActivityOnCreate →
//     Activity.performCreate, on Dalvik (Android 4.x, access$800
//     accessors) as on ART (Android 7–8, -wrap11 accessors);
//   - performCreate is performCreate(Bundle) until Android 7; on Android 8
//     performCreate(Bundle) calls performCreate(Bundle,
//     PersistableBundle), which holds the work: the outer call is the
//     phase;
//   - performStart is called from performLaunchActivity (Android 9 moved
//     it to ActivityThread.handleStartActivity, which no trace here
//     shows; the method is the same), performResume from
//     ActivityThread.handleResumeActivity → performResumeActivity;
//   - Choreographer.doFrame is doFrame(long, int) in every trace;
//   - sampling-mode traces (ART's --sampling) begin with the whole stack
//     entered at the first sample, so a launch phase that was running
//     then shows as began before tracing started, and a short phase
//     between two samples may be missing (legacy.trace has no
//     performStart or performResume).
package startup
