package main

import "github.com/atrace2/atrace2/internal/tracegen"

// frame is one Choreographer frame at wall µs: measure, layout (creating
// and binding the given number of new product rows) and draw.
func (s *sim) frame(main *tracegen.ThreadBuilder, at uint32, rows int) {
	s.loopMessage(main, at, "android.view.Choreographer$FrameDisplayEventReceiver.run()V", func() {
		s.chain(main, 25, func() {
			s.run(main, "android.view.ViewRootImpl.performMeasure(II)V", 20, func() {
				s.chain(main, 60, nil, "android.view.View.measure(II)V",
					"android.widget.FrameLayout.onMeasure(II)V",
					"androidx.constraintlayout.widget.ConstraintLayout.onMeasure(II)V",
					"androidx.recyclerview.widget.RecyclerView.onMeasure(II)V")
			})
			s.run(main, "android.view.ViewRootImpl.performLayout(Landroid/view/WindowManager$LayoutParams;II)V", 20, func() {
				s.chain(main, 30, func() { s.layoutRows(main, rows) },
					"android.view.View.layout(IIII)V",
					"androidx.constraintlayout.widget.ConstraintLayout.onLayout(ZIIII)V",
					"androidx.recyclerview.widget.RecyclerView.onLayout(ZIIII)V",
					"androidx.recyclerview.widget.RecyclerView.dispatchLayout()V",
					"androidx.recyclerview.widget.RecyclerView.dispatchLayoutStep2()V",
					"androidx.recyclerview.widget.LinearLayoutManager.onLayoutChildren(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/RecyclerView$State;)V")
			})
			s.run(main, "android.view.ViewRootImpl.performDraw()Z", 30, func() {
				s.chain(main, 40, func() {
					for range 3 + rows {
						s.run(main, "android.view.View.updateDisplayListIfDirty()Landroid/graphics/RenderNode;", 35, func() {
							s.leaves(main, 12, "android.view.View.draw(Landroid/graphics/RecordingCanvas;Landroid/view/ViewGroup;J)Z")
						})
					}
				}, "android.view.ViewRootImpl.draw(Z)Z",
					"android.view.ThreadedRenderer.draw(Landroid/view/View;Landroid/view/View$AttachInfo;Landroid/view/ThreadedRenderer$DrawCallbacks;)V",
					"android.view.ThreadedRenderer.updateRootDisplayList(Landroid/view/View;Landroid/view/ThreadedRenderer$DrawCallbacks;)V")
				s.wait(main, "android.graphics.HardwareRenderer.nSyncAndDrawFrame(J[JI)I", 400)
			})
		}, "android.view.Choreographer.doFrame(JI)V",
			"android.view.Choreographer.doCallbacks(IJJ)V",
			"android.view.ViewRootImpl$TraversalRunnable.run()V",
			"android.view.ViewRootImpl.doTraversal()V",
			"android.view.ViewRootImpl.performTraversals()V")
	})
}

// layoutRows creates and binds the visible rows of the list.
func (s *sim) layoutRows(main *tracegen.ThreadBuilder, rows int) {
	s.run(main, "androidx.recyclerview.widget.LinearLayoutManager.fill(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutState;Landroidx/recyclerview/widget/RecyclerView$State;Z)I", 15, func() {
		for range rows {
			s.chain(main, 10, func() {
				s.run(main, "androidx.recyclerview.widget.RecyclerView$Adapter.createViewHolder(Landroid/view/ViewGroup;I)Landroidx/recyclerview/widget/RecyclerView$ViewHolder;", 20, func() {
					s.run(main, "com.example.shop.ui.ProductAdapter.onCreateViewHolder(Landroid/view/ViewGroup;I)Lcom/example/shop/ui/ProductViewHolder;", 25, func() {
						s.run(main, inflate, 180, func() {
							for _, view := range []string{
								"com.google.android.material.card.MaterialCardView.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
								"android.widget.ImageView.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
								"com.google.android.material.textview.MaterialTextView.<init>(Landroid/content/Context;Landroid/util/AttributeSet;)V",
							} {
								s.run(main, createView, 30, func() { s.run(main, view, 160, nil) })
							}
						})
					})
				})
				s.run(main, "androidx.recyclerview.widget.RecyclerView$Adapter.bindViewHolder(Landroidx/recyclerview/widget/RecyclerView$ViewHolder;I)V", 15, func() {
					s.chain(main, 12, func() { s.bindRow(main) },
						"com.example.shop.ui.ProductAdapter.onBindViewHolder(Lcom/example/shop/ui/ProductViewHolder;I)V",
						"com.example.shop.ui.ProductViewHolder.bind(Lcom/example/shop/data/Product;)V")
				})
			}, "androidx.recyclerview.widget.LinearLayoutManager.layoutChunk(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/RecyclerView$State;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutState;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutChunkResult;)V",
				"androidx.recyclerview.widget.LinearLayoutManager$LayoutState.next(Landroidx/recyclerview/widget/RecyclerView$Recycler;)Landroid/view/View;",
				"androidx.recyclerview.widget.RecyclerView$Recycler.getViewForPosition(I)Landroid/view/View;",
				"androidx.recyclerview.widget.RecyclerView$Recycler.tryGetViewHolderForPositionByDeadline(IZJ)Landroidx/recyclerview/widget/RecyclerView$ViewHolder;")
		}
	})
}

// bindRow fills one row and starts its thumbnail request on OkHttp's
// dispatcher.
func (s *sim) bindRow(main *tracegen.ThreadBuilder) {
	s.run(main, setText, 40, func() { s.leaves(main, 5, requestLayout) })
	s.run(main, "com.example.shop.ui.PriceFormatter.format(J)Ljava/lang/String;", 20, func() {
		s.run(main, "java.text.NumberFormat.format(D)Ljava/lang/String;", 55, nil)
	})
	s.run(main, setText, 40, func() { s.leaves(main, 5, requestLayout) })
	s.run(main, "com.example.shop.image.ThumbnailLoader.load(Landroid/widget/ImageView;Ljava/lang/String;)V", 25, func() {
		s.run(main, "okhttp3.OkHttpClient.newCall(Lokhttp3/Request;)Lokhttp3/Call;", 15, nil)
		s.chain(main, 8, func() {
			s.leaves(main, 18, "java.util.concurrent.ThreadPoolExecutor.execute(Ljava/lang/Runnable;)V")
		}, "okhttp3.internal.connection.RealCall.enqueue(Lokhttp3/Callback;)V",
			"okhttp3.Dispatcher.enqueue$okhttp(Lokhttp3/internal/connection/RealCall$AsyncCall;)V",
			"okhttp3.Dispatcher.promoteAndExecute()Z")
	})
}

// showProducts is the coroutine resuming on the main thread with the
// catalogue: the LiveData update reaches the adapter, which asks for layout.
func (s *sim) showProducts(main *tracegen.ThreadBuilder, at uint32) {
	s.loopMessage(main, at, dispatchedRun, func() {
		s.chain(main, 8, func() {
			s.run(main, "android.view.View.setVisibility(I)V", 30, func() { s.leaves(main, 5, requestLayout) })
			s.chain(main, 10, func() {
				s.leaves(main, 6, requestLayout)
			}, "androidx.lifecycle.MutableLiveData.setValue(Ljava/lang/Object;)V",
				"androidx.lifecycle.LiveData.dispatchingValue(Landroidx/lifecycle/LiveData$ObserverWrapper;)V",
				"androidx.lifecycle.LiveData.considerNotify(Landroidx/lifecycle/LiveData$ObserverWrapper;)V",
				"com.example.shop.MainActivity$onCreate$2.onChanged(Ljava/lang/Object;)V",
				"androidx.recyclerview.widget.ListAdapter.submitList(Ljava/util/List;)V",
				"androidx.recyclerview.widget.AsyncListDiffer.submitList(Ljava/util/List;)V",
				"androidx.recyclerview.widget.AsyncListDiffer.submitList(Ljava/util/List;Ljava/lang/Runnable;)V",
				"androidx.recyclerview.widget.AdapterListUpdateCallback.onInserted(II)V",
				"androidx.recyclerview.widget.RecyclerView$Adapter.notifyItemRangeInserted(II)V",
				"androidx.recyclerview.widget.RecyclerView$RecyclerViewDataObserver.onItemRangeInserted(II)V")
		}, resumeWith, "com.example.shop.ui.ProductListViewModel$load$1.invokeSuspend(Ljava/lang/Object;)Ljava/lang/Object;")
	})
}
