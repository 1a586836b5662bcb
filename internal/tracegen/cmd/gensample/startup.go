package main

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// The app's process and thread ids. Before 2023 ART wrote the OS tid,
// truncated to u2, in each record and the full tid in *threads (docs/formats.md §7);
// these fit in 16 bits.
const (
	pid        = 4821
	tidMain    = pid
	tidBinder  = 4838
	tidWorker1 = 4851
	tidWorker2 = 4852
	tidDiskIO  = 4855
	tidOkHttp  = 4860
)

// products is how many items the catalogue request returns; visible is how
// many rows fit on the first screen.
const (
	products = 40
	visible  = 8
)

// startup builds the cold-start trace. Each block below is one thread's
// chunk of records, placed on the wall timeline with Until; the blocks are
// written in roughly time order, so threads overlap as on a device.
func startup() *tracegen.Trace {
	s := newSim(tracegen.Trace{
		Version: 3, Clock: "dual", VM: "art", Start: 81_734_201_455,
		Options: []tracegen.Option{{Key: "pid", Value: fmt.Sprint(pid)}},
	}, pid)
	b := s.b
	main := b.Thread(tidMain, "main")
	binder := b.Thread(tidBinder, fmt.Sprintf("Binder:%d_2", pid))
	w1 := b.Thread(tidWorker1, "DefaultDispatcher-worker-1")
	w2 := b.Thread(tidWorker2, "DefaultDispatcher-worker-2")
	diskIO := b.Thread(tidDiskIO, "arch_disk_io_0")
	okhttp := b.Thread(tidOkHttp, "OkHttp Dispatcher")
	// Old ART also lists live threads that recorded nothing (docs/formats.md §3.3).
	for i, name := range []string{"Jit thread pool worker thread 0", "Signal Catcher",
		"ReferenceQueueDaemon", "FinalizerDaemon", "FinalizerWatchdogDaemon",
		"HeapTaskDaemon", fmt.Sprintf("Binder:%d_1", pid)} {
		b.Thread(uint32(pid+4+i), name)
	}

	// Frames already on the main stack when tracing began: ART emits
	// synthetic enters for them at time 0 (docs/formats.md §12 item 1).
	main.Enter(s.id("android.app.ActivityThread.main([Ljava/lang/String;)V"))
	main.Enter(s.id(looperLoop))

	// The Binder thread was inside a transaction when tracing began and
	// its frame had no synthetic enter: the one orphan exit.
	binder.Until(310)
	binder.Exit(s.id("android.os.Binder.execTransact(IJJI)Z"))

	s.bindApplication(main, 1_200)
	s.warmDiskCache(w2, 24_000)
	s.scheduleTransaction(binder, 36_000)
	s.launchActivity(main, 37_500)
	posted := s.loadProducts(w1, 71_000)
	s.refreshInvalidation(diskIO, 83_000)
	s.frame(main, 101_000, 0)
	s.showProducts(main, posted+350)
	s.frame(main, posted+8_200, visible)
	_, bound := main.Clocks()
	for _, at := range s.fetchThumbnails(okhttp, bound+900) {
		s.loopMessage(main, at+250, "com.example.shop.image.ThumbnailLoader$load$1$onResponse$1.run()V", func() {
			s.run(main, "android.widget.ImageView.setImageBitmap(Landroid/graphics/Bitmap;)V", 45, func() {
				s.leaves(main, 6, requestLayout, "android.view.View.invalidate()V")
			})
		})
	}
	_, now := main.Clocks()
	s.frame(main, now+4_000, 0)

	// Tracing stops while the looper waits: MessageQueue.next and
	// nativePollOnce stay open, on top of Looper.loop and
	// ActivityThread.main (docs/formats.md §12 item 2).
	main.Enter(s.id(queueNext))
	main.Idle(2_500)
	main.Enter(s.id(pollOnce))
	return b.Trace()
}

// bindApplication is the BIND_APPLICATION message: the Application object
// and the app's dependency graph.
func (s *sim) bindApplication(main *tracegen.ThreadBuilder, at uint32) {
	s.loopMessage(main, at, "android.app.ActivityThread$H.handleMessage(Landroid/os/Message;)V", func() {
		s.run(main, "android.app.ActivityThread.handleBindApplication(Landroid/app/ActivityThread$AppBindData;)V", 4_800, func() {
			s.chain(main, 60, nil, "android.app.LoadedApk.makeApplication(ZLandroid/app/Instrumentation;)Landroid/app/Application;",
				"android.app.Instrumentation.newApplication(Ljava/lang/ClassLoader;Ljava/lang/String;Landroid/content/Context;)Landroid/app/Application;",
				"android.app.AppComponentFactory.instantiateApplication(Ljava/lang/ClassLoader;Ljava/lang/String;)Landroid/app/Application;",
				"com.example.shop.ShopApplication.<init>()V")
			s.chain(main, 40, func() {
				s.run(main, "com.example.shop.di.AppGraph.<init>(Landroid/content/Context;)V", 300, func() {
					s.run(main, "okhttp3.OkHttpClient$Builder.<init>()V", 80, nil)
					s.run(main, "okhttp3.logging.HttpLoggingInterceptor.<init>(Lokhttp3/logging/HttpLoggingInterceptor$Logger;)V", 25, nil)
					s.run(main, "okhttp3.OkHttpClient$Builder.build()Lokhttp3/OkHttpClient;", 30, func() {
						s.run(main, "okhttp3.OkHttpClient.<init>(Lokhttp3/OkHttpClient$Builder;)V", 2_100, func() {
							s.run(main, "okhttp3.internal.platform.Platform$Companion.get()Lokhttp3/internal/platform/Platform;", 3_400, nil)
						})
					})
					s.run(main, "androidx.room.RoomDatabase$Builder.build()Landroidx/room/RoomDatabase;", 1_900, func() {
						s.run(main, "com.example.shop.data.ShopDatabase_Impl.<init>()V", 120, nil)
						s.run(main, "androidx.room.InvalidationTracker.<init>(Landroidx/room/RoomDatabase;[Ljava/lang/String;)V", 240, nil)
					})
				})
				s.run(main, "kotlinx.coroutines.BuildersKt.launch$default(Lkotlinx/coroutines/CoroutineScope;Lkotlin/coroutines/CoroutineContext;Lkotlinx/coroutines/CoroutineStart;Lkotlin/jvm/functions/Function2;ILjava/lang/Object;)Lkotlinx/coroutines/Job;", 90, nil)
			}, "android.app.Instrumentation.callApplicationOnCreate(Landroid/app/Application;)V",
				"com.example.shop.ShopApplication.onCreate()V")
		})
	})
}

// warmDiskCache is the coroutine ShopApplication.onCreate launched: it lists
// the image cache directory, then the worker parks for good.
func (s *sim) warmDiskCache(w *tracegen.ThreadBuilder, at uint32) {
	s.startWorker(w, at)
	s.coroutine(w, "com.example.shop.image.DiskCache$warmUp$1.invokeSuspend(Ljava/lang/Object;)Ljava/lang/Object;", func() {
		s.run(w, "java.io.File.listFiles()[Ljava/io/File;", 40, func() {
			s.wait(w, "java.io.UnixFileSystem.list(Ljava/io/File;)[Ljava/lang/String;", 2_300)
		})
		for range 12 {
			s.leaves(w, 9, "java.io.File.length()J", "java.io.File.lastModified()J")
		}
	})
	s.parkWorker(w)
}

// scheduleTransaction is system_server asking the app to launch its
// activity: the Binder thread queues an EXECUTE_TRANSACTION message.
func (s *sim) scheduleTransaction(binder *tracegen.ThreadBuilder, at uint32) {
	binder.Until(at)
	s.chain(binder, 12, func() {
		s.chain(binder, 6, nil, "android.os.Handler.sendMessage(Landroid/os/Message;)Z",
			"android.os.Handler.sendMessageAtTime(Landroid/os/Message;J)Z", enqueueMessage)
	}, "android.os.Binder.execTransact(IJJI)Z",
		"android.os.Binder.execTransactInternal(IJJII)Z",
		"android.app.IApplicationThread$Stub.onTransact(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z",
		"android.app.ActivityThread$ApplicationThread.scheduleTransaction(Landroid/app/servertransaction/ClientTransaction;)V",
		"android.app.ClientTransactionHandler.scheduleTransaction(Landroid/app/servertransaction/ClientTransaction;)V")
}

// launchActivity is the EXECUTE_TRANSACTION message: MainActivity's
// onCreate, onStart and onResume.
func (s *sim) launchActivity(main *tracegen.ThreadBuilder, at uint32) {
	s.loopMessage(main, at, "android.app.ActivityThread$H.handleMessage(Landroid/os/Message;)V", func() {
		s.run(main, "android.app.servertransaction.TransactionExecutor.execute(Landroid/app/servertransaction/ClientTransaction;)V", 30, func() {
			s.chain(main, 20, func() {
				s.run(main, "android.app.ActivityThread.performLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/content/Intent;)Landroid/app/Activity;", 900, func() {
					s.run(main, "android.app.Instrumentation.newActivity(Ljava/lang/ClassLoader;Ljava/lang/String;Landroid/content/Intent;)Landroid/app/Activity;", 350, nil)
					s.chain(main, 25, func() { s.mainActivityOnCreate(main) },
						"android.app.Instrumentation.callActivityOnCreate(Landroid/app/Activity;Landroid/os/Bundle;)V",
						"android.app.Activity.performCreate(Landroid/os/Bundle;)V",
						"com.example.shop.MainActivity.onCreate(Landroid/os/Bundle;)V")
				})
			}, "android.app.servertransaction.TransactionExecutor.executeCallbacks(Landroid/app/servertransaction/ClientTransaction;)V",
				"android.app.servertransaction.LaunchActivityItem.execute(Landroid/app/ClientTransactionHandler;Landroid/os/IBinder;Landroid/app/servertransaction/PendingTransactionActions;)V",
				"android.app.ActivityThread.handleLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/app/servertransaction/PendingTransactionActions;Landroid/content/Intent;)Landroid/app/Activity;")
			s.chain(main, 15, nil, "android.app.ActivityThread.handleStartActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/app/servertransaction/PendingTransactionActions;Landroid/app/ActivityOptions;)V",
				"android.app.Activity.performStart(Ljava/lang/String;)V",
				"androidx.lifecycle.LifecycleRegistry.handleLifecycleEvent(Landroidx/lifecycle/Lifecycle$Event;)V")
			s.chain(main, 15, func() {
				s.run(main, "android.view.WindowManagerImpl.addView(Landroid/view/View;Landroid/view/ViewGroup$LayoutParams;)V", 1_400, func() {
					s.run(main, "android.view.ViewRootImpl.setView(Landroid/view/View;Landroid/view/WindowManager$LayoutParams;Landroid/view/View;I)V", 2_600, nil)
				})
			}, "android.app.ActivityThread.handleResumeActivity(Landroid/app/ActivityThread$ActivityClientRecord;ZZLjava/lang/String;)V",
				"android.app.Activity.performResume(ZLjava/lang/String;)V",
				"com.example.shop.MainActivity.onResume()V")
		})
	})
}

// mainActivityOnCreate inflates the layout, wires the RecyclerView and
// launches the catalogue load.
func (s *sim) mainActivityOnCreate(main *tracegen.ThreadBuilder) {
	s.run(main, "androidx.appcompat.app.AppCompatActivity.setContentView(I)V", 40, func() {
		s.run(main, "androidx.appcompat.app.AppCompatDelegateImpl.setContentView(I)V", 300, func() {
			s.run(main, inflate, 900, func() {
				for _, view := range []string{
					"androidx.constraintlayout.widget.ConstraintLayout.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
					"com.google.android.material.appbar.MaterialToolbar.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
					"android.widget.ProgressBar.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
					"androidx.recyclerview.widget.RecyclerView.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
				} {
					s.run(main, createView, 70, func() { s.run(main, view, 650, nil) })
				}
			})
		})
	})
	s.run(main, "androidx.lifecycle.ViewModelProvider.get(Ljava/lang/Class;)Landroidx/lifecycle/ViewModel;", 60, func() {
		s.run(main, "com.example.shop.ui.ProductListViewModel.<init>(Lcom/example/shop/data/ProductRepository;)V", 110, nil)
	})
	s.run(main, "androidx.recyclerview.widget.RecyclerView.setLayoutManager(Landroidx/recyclerview/widget/RecyclerView$LayoutManager;)V", 35, nil)
	s.run(main, "androidx.recyclerview.widget.RecyclerView.setAdapter(Landroidx/recyclerview/widget/RecyclerView$Adapter;)V", 25, func() {
		s.run(main, "com.example.shop.ui.ProductAdapter.<init>(Lkotlin/jvm/functions/Function1;)V", 30, nil)
	})
	s.run(main, "androidx.lifecycle.LiveData.observe(Landroidx/lifecycle/LifecycleOwner;Landroidx/lifecycle/Observer;)V", 20, nil)
	s.run(main, "com.example.shop.ui.ProductListViewModel.load()V", 15, func() {
		s.run(main, "kotlinx.coroutines.BuildersKt.launch$default(Lkotlinx/coroutines/CoroutineScope;Lkotlin/coroutines/CoroutineContext;Lkotlinx/coroutines/CoroutineStart;Lkotlin/jvm/functions/Function2;ILjava/lang/Object;)Lkotlinx/coroutines/Job;", 90, nil)
	})
}
