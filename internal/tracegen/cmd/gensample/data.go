package main

import "github.com/atrace2/atrace2/internal/tracegen"

// throw calls a method that ends with an exception: its last record is an
// unwind (docs/formats.md §12 item 5).
func (s *sim) throw(t *tracegen.ThreadBuilder, desc string, us uint32, body func()) {
	wall := s.jitter(us)
	t.CallUnwind(s.id(desc), wall, wall*4/5, body)
}

// loadProducts is the catalogue coroutine on a Dispatchers.IO worker: a
// cache miss (FileNotFoundException), a Room query, the HTTPS request, JSON
// parsing and the database insert, then the switch back to the main thread.
// It returns the wall time at which the result was posted to the main
// looper.
func (s *sim) loadProducts(w *tracegen.ThreadBuilder, at uint32) (posted uint32) {
	s.startWorker(w, at)
	s.coroutine(w, "com.example.shop.data.ProductRepository$loadProducts$2.invokeSuspend(Ljava/lang/Object;)Ljava/lang/Object;", func() {
		s.run(w, "com.example.shop.data.ProductRepository.readCache()Ljava/util/List;", 30, func() {
			s.run(w, "java.io.File.exists()Z", 25, nil)
			s.throw(w, "java.io.FileInputStream.<init>(Ljava/io/File;)V", 40, func() {
				s.throw(w, "libcore.io.IoBridge.open(Ljava/lang/String;I)Ljava/io/FileDescriptor;", 90, func() {
					s.run(w, "java.io.FileNotFoundException.<init>(Ljava/lang/String;)V", 35, func() {
						s.leaves(w, 60, "java.lang.Throwable.fillInStackTrace()Ljava/lang/Throwable;")
					})
				})
			})
		})
		s.chain(w, 20, func() {
			s.wait(w, "android.database.sqlite.SQLiteConnection.nativeExecuteForCursorWindow(JJJIIZ)J", 2_400)
		}, "com.example.shop.data.ProductDao_Impl.getAll()Ljava/util/List;",
			"androidx.room.RoomDatabase.query(Landroidx/sqlite/db/SupportSQLiteQuery;Landroid/os/CancellationSignal;)Landroid/database/Cursor;",
			"androidx.sqlite.db.framework.FrameworkSQLiteDatabase.query(Landroidx/sqlite/db/SupportSQLiteQuery;)Landroid/database/Cursor;",
			"android.database.sqlite.SQLiteDatabase.rawQueryWithFactory(Landroid/database/sqlite/SQLiteDatabase$CursorFactory;Ljava/lang/String;[Ljava/lang/String;Ljava/lang/String;Landroid/os/CancellationSignal;)Landroid/database/Cursor;",
			"android.database.sqlite.SQLiteCursor.getCount()I",
			"android.database.sqlite.SQLiteCursor.fillWindow(I)V")
		s.chain(w, 25, func() { s.interceptors(w, true) },
			"retrofit2.OkHttpCall.execute()Lretrofit2/Response;",
			"okhttp3.internal.connection.RealCall.execute()Lokhttp3/Response;")
		s.parseProducts(w)
		s.insertProducts(w)
		s.chain(w, 12, func() {
			s.leaves(w, 10, "android.os.Handler.post(Ljava/lang/Runnable;)Z", enqueueMessage)
			_, posted = w.Clocks()
		}, "kotlinx.coroutines.BuildersKt.withContext(Lkotlin/coroutines/CoroutineContext;Lkotlin/jvm/functions/Function2;Lkotlin/coroutines/Continuation;)Ljava/lang/Object;",
			"kotlinx.coroutines.android.HandlerContext.dispatch(Lkotlin/coroutines/CoroutineContext;Ljava/lang/Runnable;)V")
	})
	s.parkWorker(w)
	return posted
}

// interceptors runs OkHttp's interceptor chain down to the socket read;
// connect adds a TCP connect and TLS handshake for a new connection.
func (s *sim) interceptors(t *tracegen.ThreadBuilder, connect bool) {
	const proceed = "okhttp3.internal.http.RealInterceptorChain.proceed(Lokhttp3/Request;)Lokhttp3/Response;"
	s.chain(t, 15, func() {
		s.run(t, "okhttp3.internal.connection.ConnectInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;", 20, func() {
			s.chain(t, 30, func() {
				if connect {
					s.run(t, "okhttp3.internal.connection.RealConnection.connect(IIIIZLokhttp3/Call;Lokhttp3/EventListener;)V", 150, func() {
						s.wait(t, "java.net.Socket.connect(Ljava/net/SocketAddress;I)V", 38_000)
						s.run(t, "okhttp3.internal.connection.RealConnection.connectTls(Lokhttp3/internal/connection/ConnectionSpecSelector;)V", 900, func() {
							s.wait(t, "com.android.org.conscrypt.ConscryptFileDescriptorSocket.startHandshake()V", 61_000)
						})
					})
				}
			}, "okhttp3.internal.connection.RealCall.initExchange$okhttp(Lokhttp3/internal/http/RealInterceptorChain;)Lokhttp3/internal/connection/Exchange;",
				"okhttp3.internal.connection.ExchangeFinder.find(Lokhttp3/OkHttpClient;Lokhttp3/internal/http/RealInterceptorChain;)Lokhttp3/internal/http/ExchangeCodec;",
				"okhttp3.internal.connection.ExchangeFinder.findHealthyConnection(IIIIZZ)Lokhttp3/internal/connection/RealConnection;")
			s.chain(t, 20, func() {
				s.wait(t, "java.net.SocketInputStream.read([BII)I", 9_000+uint32(s.rng.IntN(6_000)))
			}, proceed,
				"okhttp3.internal.http.CallServerInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;",
				"okhttp3.internal.connection.Exchange.readResponseHeaders(Z)Lokhttp3/Response$Builder;",
				"okhttp3.internal.http1.Http1ExchangeCodec.readResponseHeaders(Z)Lokhttp3/Response$Builder;",
				"okio.RealBufferedSource.readUtf8LineStrict(J)Ljava/lang/String;")
		})
	}, "okhttp3.internal.connection.RealCall.getResponseWithInterceptorChain$okhttp()Lokhttp3/Response;",
		proceed, "okhttp3.internal.http.RetryAndFollowUpInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;",
		proceed, "okhttp3.internal.http.BridgeInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;",
		proceed, "okhttp3.internal.cache.CacheInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;",
		proceed)
}

// parseProducts decodes the JSON catalogue with Moshi, one adapter call per
// product.
func (s *sim) parseProducts(w *tracegen.ThreadBuilder) {
	const (
		selectName = "com.squareup.moshi.JsonUtf8Reader.selectName(Lcom/squareup/moshi/JsonReader$Options;)I"
		nextString = "com.squareup.moshi.JsonUtf8Reader.nextString()Ljava/lang/String;"
		nextLong   = "com.squareup.moshi.JsonUtf8Reader.nextLong()J"
	)
	s.chain(w, 20, func() {
		for range products {
			s.run(w, "com.example.shop.data.ProductJsonAdapter.fromJson(Lcom/squareup/moshi/JsonReader;)Lcom/example/shop/data/Product;", 18, func() {
				s.leaves(w, 4, "com.squareup.moshi.JsonUtf8Reader.beginObject()V")
				s.leaves(w, 7, selectName, nextLong, selectName, nextString, selectName, nextString, selectName, nextLong)
				s.leaves(w, 4, "com.squareup.moshi.JsonUtf8Reader.endObject()V")
				s.leaves(w, 6, "com.example.shop.data.Product.<init>(JLjava/lang/String;Ljava/lang/String;J)V")
			})
		}
	}, "retrofit2.converter.moshi.MoshiResponseBodyConverter.convert(Ljava/lang/Object;)Ljava/lang/Object;",
		"com.squareup.moshi.internal.NullSafeJsonAdapter.fromJson(Lcom/squareup/moshi/JsonReader;)Ljava/lang/Object;",
		"com.squareup.moshi.CollectionJsonAdapter.fromJson(Lcom/squareup/moshi/JsonReader;)Ljava/util/Collection;")
}

// insertProducts stores the catalogue in one Room transaction.
func (s *sim) insertProducts(w *tracegen.ThreadBuilder) {
	s.run(w, "com.example.shop.data.ProductDao_Impl.insertAll(Ljava/util/List;)V", 25, func() {
		s.wait(w, "androidx.room.RoomDatabase.beginTransaction()V", 300)
		s.run(w, "androidx.room.EntityInsertionAdapter.insert(Ljava/lang/Iterable;)V", 30, func() {
			for range products {
				s.run(w, "com.example.shop.data.ProductDao_Impl$1.bind(Landroidx/sqlite/db/SupportSQLiteStatement;Lcom/example/shop/data/ProductEntity;)V", 9, nil)
				s.wait(w, "androidx.sqlite.db.framework.FrameworkSQLiteStatement.executeInsert()J", 45)
			}
		})
		s.leaves(w, 15, "androidx.room.RoomDatabase.setTransactionSuccessful()V")
		s.wait(w, "androidx.room.RoomDatabase.endTransaction()V", 1_800)
	})
}

// refreshInvalidation is Room's invalidation check on its disk-I/O executor
// after the insert; the thread then waits for work, left open.
func (s *sim) refreshInvalidation(t *tracegen.ThreadBuilder, at uint32) {
	t.Until(at)
	s.open(t, threadRun, runPoolWorker)
	s.chain(t, 15, func() {
		s.wait(t, "android.database.sqlite.SQLiteConnection.nativeExecuteForCursorWindow(JJJIIZ)J", 700)
	}, "androidx.room.InvalidationTracker$refreshRunnable$1.run()V",
		"androidx.room.InvalidationTracker$refreshRunnable$1.checkUpdatedTable()Ljava/util/Set;",
		"androidx.sqlite.db.framework.FrameworkSQLiteDatabase.query(Landroidx/sqlite/db/SupportSQLiteQuery;)Landroid/database/Cursor;")
	s.open(t, getTask, "java.util.concurrent.LinkedBlockingQueue.take()Ljava/lang/Object;",
		"java.util.concurrent.locks.LockSupport.park(Ljava/lang/Object;)V")
}

// fetchThumbnails runs the thumbnail requests queued while binding rows, on
// a reused connection, and returns when each result was posted to the main
// looper.
func (s *sim) fetchThumbnails(t *tracegen.ThreadBuilder, at uint32) []uint32 {
	var posted []uint32
	t.Until(at)
	s.open(t, threadRun, runPoolWorker)
	for range visible {
		s.run(t, "okhttp3.internal.connection.RealCall$AsyncCall.run()V", 30, func() {
			s.interceptors(t, false)
			s.run(t, "com.example.shop.image.ThumbnailLoader$load$1.onResponse(Lokhttp3/Call;Lokhttp3/Response;)V", 20, func() {
				s.run(t, "android.graphics.BitmapFactory.decodeStream(Ljava/io/InputStream;)Landroid/graphics/Bitmap;", 30, func() {
					s.run(t, "android.graphics.BitmapFactory.nativeDecodeStream(Ljava/io/InputStream;[BLandroid/graphics/Rect;Landroid/graphics/BitmapFactory$Options;ZF)Landroid/graphics/Bitmap;", 2_600, nil)
				})
				s.leaves(t, 10, "android.os.Handler.post(Ljava/lang/Runnable;)Z", enqueueMessage)
				_, wall := t.Clocks()
				posted = append(posted, wall)
			})
		})
	}
	// Waiting for the next call when tracing stops.
	s.open(t, getTask, "java.util.concurrent.SynchronousQueue.poll(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;")
	return posted
}
